package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-lang/assay/runtime"
)

// The report names the run a replay replays, each task's baseline, seed
// commit, best program and the command that checks it out, each
// candidate's metric, gain and attempts, and which side of the estimate a
// figure outside it fell.
func TestRecordShown(t *testing.T) {
	rep := sample()
	f := func(x float64) *float64 { return &x }
	best := &runtime.BestProgram{Env: "e", Task: "t", Repository: "/repo", Ref: "refs/assay/r1/best/t", Commit: "c2c2c2c2c2c2c2c2", Gain: 0.125}
	st := rep.Status
	st.Replay = &runtime.ReplayOf{Run: "first", Dir: ".assay/runs/first", Runs: true}
	st.Tasks = []runtime.TaskRecord{{Env: "e", Task: "t", Baseline: f(0.5), BaselineRun: "baseline/e/t", SeedCommit: "5eed5eed", Repository: "/repo", Best: best, Checkout: best.Checkout()}}
	st.Candidates = []runtime.Candidate{{Key: "evolve/e/t/i0/r0/0", Env: "e", Task: "t", Idea: "raise the rate", Commit: "c2c2c2c2c2c2c2c2",
		Run: "evolve/e/t/i0/r0/0/repair/1", Status: "finished", Metric: f(0.375), Gain: f(0.125), Repairs: 1,
		Attempts: []runtime.Attempt{{Commit: "c1c1c1c1c1c1c1c1", Run: "evolve/e/t/i0/r0/0", Status: "error", Reason: "exit code 2"},
			{Commit: "c2c2c2c2c2c2c2c2", Repair: 1, Run: "evolve/e/t/i0/r0/0/repair/1", Status: "finished"}}}}
	rep.Compare = append(rep.Compare,
		runtime.Comparison{Figure: "totals.real_runs", Low: 4, Expected: 5, High: 6, Measured: 3, Side: "below"},
		runtime.Comparison{Figure: "totals.llm_calls", Low: 4, Expected: 5, High: 6, Measured: 9, Side: "above"})
	var b bytes.Buffer
	if err := WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"This run replays run <b>first</b>", "and every real run",
		`<td>e/t</td><td class="n">0.5 <small>(run baseline/e/t)</small></td><td><small>5eed5eed</small></td><td class="n">0.125</td>`,
		"<code>git -C /repo checkout refs/assay/r1/best/t</code>",
		`<td>finished</td><td class="n">0.375</td><td class="n">0.125</td>`,
		"attempts: c1c1c1c1c1c1 (run evolve/e/t/i0/r0/0: error: exit code 2); c2c2c2c2c2c2 (repair 1, run evolve/e/t/i0/r0/0/repair/1: finished);",
		`<td class="n">3</td><td>below the low</td>`, `<td class="n">9</td><td><b>above the high</b></td>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	if strings.Contains(out, "<b>outside</b>") {
		t.Error("a figure is marked outside without its side")
	}
}

// A checkout command quotes a repository path a shell would split.
func TestCheckoutQuoted(t *testing.T) {
	b := runtime.BestProgram{Repository: "/my repo/it's", Ref: "refs/assay/r/best/t"}
	if got, want := b.Checkout(), `git -C '/my repo/it'\''s' checkout refs/assay/r/best/t`; got != want {
		t.Errorf("checkout %s, want %s", got, want)
	}
}
