package contract

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSuiteSpecRunsWithinItsEstimate runs specs/laptop/suite.hcl for real:
// the example task suite's four tasks, each run a `go run` of
// examples/suite/train.go through the command trainer, its evaluation
// command from the manifest, with knob edits the offline LLM makes; every
// count stays inside the estimate, and every run trains to a metric.
func TestSuiteSpecRunsWithinItsEstimate(t *testing.T) {
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
	res, _ := checkRun(t, p, 0)
	if tt := res.Totals; tt.RealRuns < 8 || tt.Finished+tt.Infeasible != tt.RealRuns {
		t.Errorf("real runs %d, finished %d, infeasible %d: want every run to end with a result", tt.RealRuns, tt.Finished, tt.Infeasible)
	}
}
