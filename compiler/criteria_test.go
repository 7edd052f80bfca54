package compiler

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
)

// TestCriteriaDir: a critic's criteria_dir lowers into the plan's task
// criteria, one per TASK.md; a builder's is refused, as is a directory
// that cannot be read.
func TestCriteriaDir(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "criteria"))
	withSource(t, dir, "criteria/train-01.md", "Lower val_bpb wins.\n")
	withSource(t, dir, "criteria/notes.txt", "not read\n")
	path := withSource(t, dir, "s.hcl", judgeWith(t, "  prompt {\n    criteria_dir = \"criteria\"\n  }"))
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	p, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	for _, r := range p.Variants[0].Roles {
		if r.Name == "judge" {
			if tc := r.Prompt.TaskCriteria; len(tc) != 1 || tc["train-01"] != "Lower val_bpb wins." {
				t.Errorf("task criteria %q, want train-01's alone", tc)
			}
		}
	}
	src, _ := mutate(t, readBase(t), "role \"builder\" {\n", "role \"builder\" {\n  prompt {\n    criteria_dir = \"criteria\"\n  }\n")
	s, _, _ = load.Load(withSource(t, dir, "b.hcl", src), load.Options{})
	if _, ds = Compile(s, Options{}); !strings.Contains(ds.Format(0), CodeNotApplicable) {
		t.Errorf("a builder's criteria_dir: %s", ds.Format(0))
	}
	_, _, ds = load.Load(withSource(t, dir, "m.hcl", judgeWith(t, "  prompt {\n    criteria_dir = \"nope\"\n  }")), load.Options{})
	if out := ds.Format(0); !strings.Contains(out, "E_PROMPT_FILE") || !strings.Contains(out, "cannot read criteria_dir nope") {
		t.Errorf("a missing criteria_dir: %s", out)
	}
}

func init() {
	specialFields["role.*.prompt.criteria_dir"] = func(t *testing.T) {
		dir := t.TempDir()
		mkdir(t, filepath.Join(dir, "criteria"))
		src := judgeWith(t, "  prompt {\n    criteria_dir = \"criteria\"\n  }")
		withSource(t, dir, "criteria/train-01.md", "Lower wins.\n")
		h1, ds := promptPlan(t, dir, "s.hcl", src)
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		withSource(t, dir, "criteria/train-01.md", "Lower wins, at equal cost.\n")
		h2, ds := promptPlan(t, dir, "s.hcl", src)
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		if h1 == h2 {
			t.Error("changing a criteria file left the plan hash as it was")
		}
	}
}
