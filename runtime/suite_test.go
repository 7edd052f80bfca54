package runtime

import (
	"math"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// Suite scores normalise by each task's bounds and direction, take the
// best of a task's proposal runs and each evaluation arm's mean, and
// average per domain and over the held-out tasks.
func TestSuiteScores(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	envs := []*plan.Environment{
		{Name: "lo", Direction: "minimize", Tasks: []*plan.Task{
			{Name: "a", Split: "train", Direction: plan.Minimize, Domain: "cv", Baseline: f(0.8), Bounds: &plan.Bounds{Low: 0, High: 1}},
			{Name: "b", Split: "holdout", Direction: plan.Minimize, Domain: "nlp", Baseline: f(3), Bounds: &plan.Bounds{Low: 2, High: 4}},
			{Name: "plain", Split: "train"}, // not a suite task
		}},
		{Name: "hi", Direction: "maximize", Tasks: []*plan.Task{
			{Name: "c", Split: "holdout", Direction: plan.Maximize, Domain: "cv", Bounds: &plan.Bounds{Low: 50, High: 100}},
		}},
	}
	run := func(key, env, task string, metric float64, proposal bool) journal.Run {
		r := journal.Run{Key: key, Reservation: journal.Reservation{Env: env, Task: task}, Result: &plugins.RunResult{Status: plugins.StatusFinished, Metric: metric}}
		if proposal {
			r.Reservation.Proposal, r.Reservation.Baseline = &plugins.Proposal{}, f(0)
		}
		return r
	}
	failed := run("rl/x/lo/a/9", "lo", "a", 0.01, true)
	failed.Result.Status = plugins.StatusFailed
	runs := []journal.Run{
		run("rl/x/lo/a/1", "lo", "a", 0.6, true),
		run("rl/x/lo/a/2", "lo", "a", 0.4, true), // the best of a: lower is better
		failed,                                   // not measured: not the best
		run("baseline/hi/c", "hi", "c", 60, false),
		run("eval/policy/hi/c/s0/0", "hi", "c", 90, true),
		run("eval/policy/hi/c/s0/1", "hi", "c", 80, true),
		run("eval/base/hi/c/s0/0", "hi", "c", 70, true),
		run("eval/policy/lo/b/s0/0", "lo", "b", 2.5, true),
		run("rl/x/lo/plain/1", "lo", "plain", 1, true),
	}
	s := suiteScoresOf(envs, runs)
	if s == nil {
		t.Fatal("no scores")
	}
	if got := s.Columns; len(got) != 4 || got[0] != "baseline" || got[1] != "best" || got[2] != "eval base" || got[3] != "eval policy" {
		t.Fatalf("columns %v", got)
	}
	want := map[string][]float64{
		// baseline, best, eval base, eval policy; NaN: none measured
		"a": {0.2, 0.6, math.NaN(), math.NaN()},
		"b": {0.5, 0.75, math.NaN(), 0.75},
		"c": {0.2, 0.8, 0.4, 0.7}, // measured baseline 60; best 90; policy mean 85
	}
	if len(s.Tasks) != 3 {
		t.Fatalf("tasks %+v", s.Tasks)
	}
	for _, row := range s.Tasks {
		checkRow(t, row.Task, row.Normalised, want[row.Task])
	}
	checkRow(t, "domain cv", s.Domains[0].Normalised, []float64{0.2, 0.7, 0.4, 0.7})
	checkRow(t, "domain nlp", s.Domains[1].Normalised, want["b"])
	if s.Holdout == nil || s.Holdout.Tasks != 2 {
		t.Fatalf("holdout %+v", s.Holdout)
	}
	checkRow(t, "held-out", s.Holdout.Normalised, []float64{0.35, 0.775, 0.4, 0.725})
	if suiteScoresOf([]*plan.Environment{{Name: "e", Tasks: []*plan.Task{{Name: "t"}}}}, runs) != nil {
		t.Error("scores without a suite task")
	}
}

func checkRow(t *testing.T, name string, got []*float64, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d scores, want %d", name, len(got), len(want))
	}
	for i, w := range want {
		switch {
		case math.IsNaN(w) && got[i] != nil:
			t.Errorf("%s[%d] = %v, want none", name, i, *got[i])
		case !math.IsNaN(w) && (got[i] == nil || math.Abs(*got[i]-w) > 1e-9):
			t.Errorf("%s[%d] = %v, want %v", name, i, got[i], w)
		}
	}
}
