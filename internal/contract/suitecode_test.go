package contract

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/examples"
	"github.com/assay-lang/assay/lang/load"
)

// TestSuiteCodeSpecRunsWithinItsEstimate runs the example task suite in
// source mode (cmd/assay/testdata/suitecode/suite-code.hcl) on a copy of
// the example written as `assay example suite` writes it: every candidate
// is a patch the offline LLM wrote, built with go vet in a worktree and
// committed under refs/assay/c/, every run trains it, and every count
// stays inside the estimate. It runs with ASSAY_REHEARSE_ALL=1 (as CI
// sets it): without, cmd/assay's suite_code.txtar runs the same spec on
// the same example from the command line, and the code twins check a
// source-mode run's counts against its estimate.
func TestSuiteCodeSpecRunsWithinItsEstimate(t *testing.T) {
	t.Parallel()
	if !rehearseAll {
		t.Skip("runs with ASSAY_REHEARSE_ALL=1; suite_code.txtar runs the spec from the command line")
	}
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	repo := t.TempDir()
	if _, err := examples.WriteExample("suite", repo); err != nil {
		t.Fatal(err)
	}
	if _, err := gitrepo.Init(context.Background(), repo, "example\n", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(specsDir(t), "..", "cmd", "assay", "testdata", "suitecode", "suite-code.hcl")
	s, _, ds := load.Load(path, load.Options{Vars: []string{"suite=" + repo}})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, ds := compiler.Compile(s, compiler.Options{CheckRepository: gitrepo.Check})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, tk := range p.Variants[0].Envs[0].Tasks {
		if tk.Source == nil || tk.Source.Repository != repo || len(tk.Command) == 0 {
			t.Fatalf("task %s is not in source mode on %s: %+v", tk.Name, repo, tk)
		}
	}
	res, _ := checkRun(t, p, 0)
	if tt := res.Totals; tt.RealRuns < 8 || tt.Finished+tt.Infeasible != tt.RealRuns || tt.Finished == 0 {
		t.Errorf("real runs %d, finished %d, infeasible %d: want every run to end with a result", tt.RealRuns, tt.Finished, tt.Infeasible)
	}
	out, err := exec.Command("git", "-C", repo, "for-each-ref", "--format=%(refname)", "refs/assay/c/").Output()
	if err != nil {
		t.Fatal(err)
	}
	refs := string(out)
	for _, want := range []string{"refs/assay/c/policy/r0/s0/0\n", "refs/assay/c/best/spirals\n", "refs/assay/c/best/moons\n"} {
		if !strings.Contains(refs, want) {
			t.Errorf("no %s among the run's refs:\n%s", strings.TrimSpace(want), refs)
		}
	}
}
