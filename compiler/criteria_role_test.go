package compiler

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
)

const understandRole = `
role "understand" {
  kind = "summarizer"
  llm  = plugin.offline
}
`

// judgeUnderstood is base.hcl with a summarizer role and the judge's
// prompt block.
func judgeUnderstood(t *testing.T, block string) string {
	return judgeWith(t, block) + understandRole
}

// TestCriteriaRole: a critic's criteria_role lowers into the plan and is
// priced in every phase that calls the critic, at most one call per task
// of the spec; misuse is refused at the field.
func TestCriteriaRole(t *testing.T) {
	dir := t.TempDir()
	s, _, ds := load.Load(withSource(t, dir, "s.hcl", judgeUnderstood(t, "  prompt {\n    criteria_role = role.understand\n  }")), load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	p, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	v := p.Variants[0]
	for _, r := range v.Roles {
		if r.Name == "judge" && (r.Prompt == nil || r.Prompt.CriteriaRole != "understand") {
			t.Errorf("judge's prompt %+v: want criteria_role understand", r.Prompt)
		}
	}
	tasks := 0.0
	for _, e := range v.Envs {
		tasks += float64(len(e.Tasks))
	}
	priced := 0
	for _, ph := range v.Phases {
		judge, ok := ph.Calls.LLM["judge"]
		u := ph.Calls.LLM["understand"]
		if !ok || judge.High == 0 {
			continue
		}
		priced++
		if u.Low != 0 || u.High != tasks {
			t.Errorf("phase %s: understand calls %+v, want [0, %v] (one per task)", ph.Name, u, tasks)
		}
	}
	if priced == 0 || tasks == 0 {
		t.Fatalf("no phase calls the judge (%d) or no tasks (%v)", priced, tasks)
	}
	for _, c := range []struct{ src, code, want string }{
		{strings.Replace(judgeUnderstood(t, ""), "role \"builder\" {\n", "role \"builder\" {\n  prompt {\n    criteria_role = role.understand\n  }\n", 1), CodeNotApplicable, "criteria are a critic's"},
		{judgeUnderstood(t, "  prompt {\n    criteria_role = role.proposer\n  }"), CodeRefKind, "must be a role of kind summarizer"},
		{judgeUnderstood(t, "  prompt {\n    criteria_role = role.nope\n  }"), CodeUnknownRef, "not declared"},
		{judgeUnderstood(t, "  prompt {\n    criteria = \"x\"\n    criteria_role = role.understand\n  }"), CodeConflict, "both criteria and criteria_role"},
	} {
		s, _, ds := load.Load(withSource(t, dir, "m.hcl", c.src), load.Options{})
		if !ds.HasErrors() {
			_, ds = Compile(s, Options{})
		}
		out := ds.Format(0)
		if !strings.Contains(out, c.code) || !strings.Contains(out, c.want) || !strings.Contains(out, "m.hcl:") {
			t.Errorf("want %s %q at m.hcl, got:\n%s", c.code, c.want, out)
		}
	}
}

func init() {
	specialFields["role.*.prompt.criteria_role"] = func(t *testing.T) {
		dir := t.TempDir()
		h1, ds := promptPlan(t, dir, "a.hcl", judgeUnderstood(t, ""))
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		h2, ds := promptPlan(t, dir, "b.hcl", judgeUnderstood(t, "  prompt {\n    criteria_role = role.understand\n  }"))
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		if h1 == h2 {
			t.Error("criteria_role left the plan hash as it was")
		}
	}
}

// TestCriteriaRoleNeverCalled: a criteria_role beside criteria files that
// cover every task of the spec is never asked, so it is refused at the
// field; in a sweep where some variant has a task without a file, it is a
// warning naming the variants that never call it.
func TestCriteriaRoleNeverCalled(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "criteria"))
	for _, task := range []string{"train-01", "train-02", "train-03", "train-04", "train-05", "holdout-01", "holdout-02", "t1"} {
		withSource(t, dir, "criteria/"+task+".md", "Lower wins on "+task+".\n")
	}
	block := "  prompt {\n    criteria_dir  = \"criteria\"\n    criteria_role = role.understand\n  }"
	compileIn := func(name, src string) string {
		s, _, ds := load.Load(withSource(t, dir, name, src), load.Options{})
		if !ds.HasErrors() {
			_, ds = Compile(s, Options{})
		}
		return ds.Format(0)
	}
	// t2 has no file: the role is asked about it.
	if out := compileIn("some.hcl", judgeUnderstood(t, block)); strings.Contains(out, "never called") {
		t.Errorf("t2 has no criteria file, yet:\n%s", out)
	}
	withSource(t, dir, "criteria/t2.md", "Lower wins on t2.\n")
	out := compileIn("all.hcl", judgeUnderstood(t, block))
	if !strings.Contains(out, CodeNotApplicable) || !strings.Contains(out, "criteria_role is never called") || !strings.Contains(out, "all.hcl:") {
		t.Errorf("every task has a criteria file: want %s at criteria_role, got:\n%s", CodeNotApplicable, out)
	}
	sweep := strings.Replace(judgeUnderstood(t, block), "budget {", "sweep {\n  axis \"environment.olmo3.tasks.train\" {\n    values = [5, 6]\n  }\n}\n\nbudget {", 1)
	out = compileIn("sweep.hcl", sweep)
	if !strings.Contains(out, CodeVariantsIgnore) || !strings.Contains(out, "1 of 2 variants ignore this") || strings.Contains(out, "error[") {
		t.Errorf("a sweep where one variant has a task without a file: want a %s warning alone, got:\n%s", CodeVariantsIgnore, out)
	}
}
