package contract

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/compare"
)

// TestSuiteSpecRunsWithinItsEstimate runs specs/laptop/suite.hcl for real:
// the example task suite's four tasks, each run a `go run` of
// examples/suite/train.go through the command trainer, its evaluation
// command from the manifest, with knob edits the offline LLM makes; every
// count stays inside the estimate, and every run trains to a metric.
func TestSuiteSpecRunsWithinItsEstimate(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH; the suite's evaluation command is go run")
	}
	p, ds := compile(t, filepath.Join(specsDir(t), "laptop", "suite.hcl"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	tasks := map[string]string{}
	for _, e := range p.Variants[0].Envs {
		for _, tk := range e.Tasks {
			tasks[tk.Name] = tk.Domain + "/" + tk.Split
			if len(tk.Command) == 0 || tk.Bounds == nil || tk.Scaffold == nil {
				t.Errorf("task %s: the plan lacks its suite fields: %+v", tk.Name, tk)
			}
		}
	}
	want := map[string]string{"spirals": "classification/train", "sine": "regression/train", "moons": "classification/holdout", "friedman": "regression/holdout"}
	for name, w := range want {
		if tasks[name] != w {
			t.Errorf("task %s: %q in the plan, want %q", name, tasks[name], w)
		}
	}
	res, dir := checkRun(t, p, 0)
	if tt := res.Totals; tt.RealRuns < 8 || tt.Finished+tt.Infeasible != tt.RealRuns {
		t.Errorf("real runs %d, finished %d, infeasible %d: want every run to end with a result", tt.RealRuns, tt.Finished, tt.Infeasible)
	}
	// The report scores every task, normalised, per domain and held out,
	// with a column per evaluation arm; compare shows them.
	row, err := compare.LoadRow(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runtime.LoadReport(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Suite
	if s == nil || len(s.Tasks) != 4 || len(s.Domains) != 2 || s.Holdout == nil || s.Holdout.Tasks != 2 {
		t.Fatalf("suite scores %+v", s)
	}
	if got := strings.Join(s.Columns, ","); got != "baseline,best,eval base,eval policy" {
		t.Errorf("columns %s", got)
	}
	for _, h := range s.Holdout.Normalised {
		if h == nil || *h < 0 || *h > 1 {
			t.Errorf("a held-out normalised score is %v, want one in [0, 1]", h)
		}
	}
	names := []string{}
	for _, sc := range row.Suite {
		names = append(names, sc.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "domain classification,domain regression,domain average,held-out,held-out base,held-out policy") {
		t.Errorf("compare's suite scores: %s", got)
	}
}
