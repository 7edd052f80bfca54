package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
