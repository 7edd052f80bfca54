package runtime

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// Each real run is sent its time limit (the plan's high hours), holds
// its high GPU-hours against the caps, and is charged what it measured:
// runs of 0.5 hours under a high of 2 start as the 2-hour hold allows and
// are charged 0.5 each, also after a resume.
func TestRunsAreLimitedAndChargedMeasuredHours(t *testing.T) {
	mk := func() *plan.Plan {
		p := lm2lmPlan()
		v := p.Variants[0]
		v.Envs[0].Hours = plan.Count{Low: 0.1, Expected: 0.5, High: 2}
		v.Envs[0].GPUHours, v.Envs[0].TimeLimitSeconds = v.Envs[0].Hours, 7200
		v.Phases = []*plan.Phase{{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: seedBody(40), Calls: plan.Calls{RealRuns: runs(40)}}}
		v.Budget = plan.Budget{GPUHours: 18.5}
		return p
	}
	newTrainer := func() *fakeTrainer {
		tr := newFakeTrainer()
		tr.seconds = func(*plugins.RunRequest) float64 { return 1800 }
		tr.limits = map[string]float64{}
		return tr
	}
	tr := newTrainer()
	res, err := runPlan(t, mk(), t.TempDir(), "m", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.limits) == 0 {
		t.Fatal("no run started")
	}
	for id, lim := range tr.limits {
		if lim != 7200 {
			t.Errorf("run %s was sent a time limit of %gs, want the plan's 7200", id, lim)
		}
	}
	// All 40 are reserved at once, before any runs: 9 fit at 2 hours each.
	tot := res.Totals
	if tot.RealRuns != 9 || tot.GPUHours != 18 || math.Abs(tot.MeasuredGPUHours-4.5) > 1e-9 || math.Abs(tot.MeasuredRunUSD-9) > 1e-6 || tot.Overruns != 0 {
		t.Errorf("%d runs held %g GPU-hours, charged %g and $%g, %d overruns; want 9 runs held at 2 hours, charged 0.5 ($2 an hour each), no overrun",
			tot.RealRuns, tot.GPUHours, tot.MeasuredGPUHours, tot.MeasuredRunUSD, tot.Overruns)
	}

	// Interrupted after 4 runs started, then resumed: the same charge.
	dir := t.TempDir()
	tr = newTrainer()
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	tr.onStart = func(n int) {
		if n == 4 {
			once.Do(cancel)
		}
	}
	if _, err := Run(ctx, mk(), Options{ID: "r", Dir: dir, Plugins: &testLoader{trainer: tr}}); err == nil {
		t.Fatal("the run was not interrupted")
	}
	tr.onStart = nil
	got, err := Run(context.Background(), nil, Options{ID: "r", Dir: dir, Resume: true, Plugins: &testLoader{trainer: tr}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Totals.MeasuredGPUHours != tot.MeasuredGPUHours || got.Totals.GPUHours != tot.GPUHours || got.Totals.RealRuns != tot.RealRuns {
		t.Errorf("resumed: %d runs, %g GPU-hours held, %g charged; uninterrupted: %d, %g, %g",
			got.Totals.RealRuns, got.Totals.GPUHours, got.Totals.MeasuredGPUHours, tot.RealRuns, tot.GPUHours, tot.MeasuredGPUHours)
	}
}

// A run that takes longer than its high hours (a trainer that ignores its
// time limit; here 7.2 times it) is charged what it held, so the cap
// holds, and the overrun is reported in the totals and the status.
func TestOverrunsAreReported(t *testing.T) {
	tr := newFakeTrainer()
	tr.seconds = func(req *plugins.RunRequest) float64 { return 7.2 * req.TimeLimitSeconds }
	dir := t.TempDir()
	res, err := runPlan(t, lm2lmPlan(), dir, "o", &testLoader{trainer: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	tot := res.Totals
	n := float64(tot.RealRuns)
	if tot.RealRuns == 0 || tot.Overruns != tot.RealRuns || math.Abs(tot.MeasuredGPUHours-n*0.5) > 1e-6 || math.Abs(tot.OverrunGPUHours-n*6.2*0.5) > 1e-6 {
		t.Errorf("%d runs: %d overruns, %g GPU-hours charged, %g beyond; want every run an overrun, charged 0.5 with 3.1 beyond",
			tot.RealRuns, tot.Overruns, tot.MeasuredGPUHours, tot.OverrunGPUHours)
	}
	st, err := ReadStatus(dir, "o")
	if err != nil {
		t.Fatal(err)
	}
	if st.Totals == nil || st.Totals.Overruns != tot.Overruns {
		t.Errorf("status totals %+v do not report the overruns", st.Totals)
	}
}
