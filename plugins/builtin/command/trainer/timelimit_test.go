package trainer

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// A run is stopped at the time limit its request carries (the plan's
// high hours), or config.time_limit where that is shorter, and fails with
// the reason.
func TestRequestTimeLimit(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cfg   string // config.time_limit, "" for none
		req   float64
		want  string
		slurm bool
	}{
		{name: "request", req: 1, want: "time limit of 1s exceeded"},
		{name: "config shorter", cfg: "1s", req: 3600, want: "time limit of 1s exceeded"},
		{name: "request shorter", cfg: "1h", req: 1, want: "time limit of 1s exceeded"},
		{name: "slurm", req: 2, want: "time limit of 2s exceeded", slurm: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each waits out its time limit
			cfg := map[string]any{"command": "sleep 120", "metric_regex": "x(1)"}
			if tt.cfg != "" {
				cfg["time_limit"] = tt.cfg
			}
			req := request(t, "tl", cfg, nil)
			if tt.slurm {
				requireSlurm(t)
				req = slurmRequest(t, "tl", cfg, nil)
			}
			req.TimeLimitSeconds = tt.req
			tr := newTrainer()
			r := run(t, tr, req)
			if r.Status != plugins.StatusFailed || !strings.Contains(r.Reason, tt.want) {
				t.Fatalf("got %s: %s, want failed: %s", r.Status, r.Reason, tt.want)
			}
			if r.Seconds <= 0 || r.Seconds > 100 {
				t.Errorf("the run measured %gs; want it stopped near its limit", r.Seconds)
			}
			if tt.slurm {
				// The job's own --time: the limit plus 30 s for run.sh to
				// report, rounded up to whole minutes.
				rec, err := readRecord(r.WorkDir)
				if err != nil {
					t.Fatal(err)
				}
				id := strings.TrimPrefix(strings.SplitN(rec.Handle, "@", 2)[0], "slurm:")
				out, err := exec.Command("scontrol", "show", "job", id, "-o").CombinedOutput()
				if err != nil {
					t.Fatalf("scontrol: %v: %s", err, out)
				}
				if !strings.Contains(string(out), " TimeLimit=00:01:00 ") {
					t.Errorf("job %s: want TimeLimit=00:01:00 in %s", id, out)
				}
			}
		})
	}
}
