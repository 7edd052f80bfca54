package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// A prompt file edited in place changes no spec field; the diff still
// names the role's changed template.
func TestDiffPromptFile(t *testing.T) {
	b, err := os.ReadFile("../testdata/base.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "role \"judge\" {\n", "role \"judge\" {\n  prompt {\n    user_file = \"judge.tmpl\"\n  }\n", 1)
	write := func(dir, tmpl string) string {
		if err := os.WriteFile(filepath.Join(dir, "judge.tmpl"), []byte(tmpl), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "s.hcl")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write(t.TempDir(), "Parent: {{.Parent.Text}}\nChild: {{.Child.Text}}\n")
	new := write(t.TempDir(), "Child: {{.Child.Text}}\nParent: {{.Parent.Text}}\n")
	r := mustDiff(t, old, new, Options{})
	if !r.Changed || r.OldHash == r.NewHash {
		t.Fatalf("a changed prompt file left the plan as it was: %+v", r)
	}
	var got []string
	for _, f := range r.Fields {
		got = append(got, f.Path)
	}
	if len(got) != 1 || got[0] != "role.judge.prompt.user_text" {
		t.Fatalf("field changes %v, want [role.judge.prompt.user_text]", got)
	}
	if s, _ := r.Fields[0].Old.(string); !strings.HasPrefix(s, "judge.tmpl, sha256 ") {
		t.Errorf("old side %v", r.Fields[0].Old)
	}
}

// TestDiffTaskCriteria: a task's criteria file changed, added or removed
// shows as role.NAME.prompt.task_criteria.TASK.
func TestDiffTaskCriteria(t *testing.T) {
	mk := func(tc map[string]string) *plan.Plan {
		return &plan.Plan{Variants: []*plan.Variant{{Roles: []*plan.Role{{Name: "critic", Prompt: &plan.Prompt{TaskCriteria: tc}}}}}}
	}
	got := taskCriteriaChanges(mk(map[string]string{"a": "x", "b": "y"}), mk(map[string]string{"a": "x2", "c": "z"}))
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path)
	}
	want := []string{"role.critic.prompt.task_criteria.a", "role.critic.prompt.task_criteria.b", "role.critic.prompt.task_criteria.c"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("changes %v, want %v", paths, want)
	}
	if got := taskCriteriaChanges(mk(map[string]string{"a": "x"}), mk(map[string]string{"a": "x"})); len(got) != 0 {
		t.Errorf("equal criteria differ: %v", got)
	}
}
