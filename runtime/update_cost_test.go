package runtime

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// updateCapPlan is the mini LM2LM with a policy update each step (2 GPUs
// for half an hour: 1 GPU-hour held, $2, a limit of 1800 s), under a
// GPU-hour cap of 11.5 where its 14 real runs (7 GPU-hours) and 8 updates
// (8) want 15; the evaluation's 2 real runs are held back for it.
func updateCapPlan() *plan.Plan {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Plugins = append(v.Plugins, &plan.Plugin{Name: "rl", Kind: "trainer"})
	v.Loops[0].ZeroVariance = "keep"
	v.Loops[0].Update = &plan.PolicyUpdate{Trainer: "rl", GPU: "CPU", GPUs: 2, Hours: 0.5, GPUHours: 1, USD: 2, TimeLimitSeconds: 1800, Adapter: "pol", Updates: plan.Exact(8)}
	v.Budget = plan.Budget{GPUHours: 11.5}
	for _, ph := range v.Phases {
		ph.HoldBack = &plan.HoldBack{}
	}
	v.Phases[0].HoldBack.GPUHours = 4 // the loop's calibration runs and the evaluation's
	v.Phases[1].HoldBack.GPUHours = 1 // the evaluation's
	return p
}

func updateLoader(up plugins.Trainer) Loader {
	var mu sync.Mutex
	var loaded, used []string
	return loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
		switch pl.Name {
		case "rl":
			return &inst{t: up}, nil
		case "trainer":
			return &inst{t: newFakeTrainer()}, nil
		}
		return &inst{l: servedLLM{mu: &mu, loaded: &loaded, used: &used}}, nil
	})
}

// An update command that outlives its hours: each update is sent the
// plan's time limit, holds its GPU-hours before it starts, and is charged
// what it measured, at most its hold; its trainer (which ignores the
// limit and takes three times it) overran, and each overrun is reported.
// The GPU-hour cap holds across real runs and updates together: updates
// the cap cannot pay for do not run, and the loop is reported cut; a run
// interrupted in an update resumes to the same figures.
func TestUpdateLimitedChargedAndCapped(t *testing.T) {
	t.Parallel()
	slow := func() *fakeUpdater {
		return &fakeUpdater{took: func(req *plugins.RunRequest) float64 { return 3 * req.TimeLimitSeconds }}
	}
	dir := t.TempDir()
	up := slow()
	res, err := runPlan(t, updateCapPlan(), dir, "u", updateLoader(up), false)
	if err != nil {
		t.Fatal(err)
	}
	for i, lim := range up.limits {
		if lim != 1800 {
			t.Errorf("update %d was sent a time limit of %gs, want the plan's 1800", i+1, lim)
		}
	}
	tot := res.Totals
	n := float64(len(up.jobs))
	if n == 0 || n >= 8 {
		t.Fatalf("%d updates ran under a cap with room for some of the 8 beside the real runs", len(up.jobs))
	}
	// Each update measured 3 x 1800 s x 2 GPUs = 3 GPU-hours, held 1.
	if tot.UpdateOverruns != int(n) || math.Abs(tot.MeasuredUpdateGPUHours-n) > 1e-9 || math.Abs(tot.OverrunGPUHours-2*n) > 1e-6 {
		t.Errorf("%g updates: %d overran, %g GPU-hours charged, %g beyond; want every one an overrun, charged its 1 held, 2 beyond",
			n, tot.UpdateOverruns, tot.MeasuredUpdateGPUHours, tot.OverrunGPUHours)
	}
	if tot.GPUHours > 11.5+1e-9 || tot.MeasuredGPUHours > tot.GPUHours+1e-9 {
		t.Errorf("reserved %g GPU-hours, charged %g, under a cap of 11.5", tot.GPUHours, tot.MeasuredGPUHours)
	}
	if res.State != StateStoppedAtCap || !cutNames(res.Cuts, "policy", "made fewer policy updates than the plan gives it: the GPU-hour cap of 11.5") {
		t.Errorf("state %s, cuts %+v; want the loop cut at the GPU-hour cap", res.State, res.Cuts)
	}
	t.Logf("%g updates sent a limit of %gs; reserved %g GPU-hours of the 11.5 cap, measured %g charged (updates %g), %d update overruns of %g GPU-hours",
		n, up.limits[0], tot.GPUHours, tot.MeasuredGPUHours, tot.MeasuredUpdateGPUHours, tot.UpdateOverruns, tot.OverrunGPUHours)
	st, err := ReadStatus(dir, "u")
	if err != nil {
		t.Fatal(err)
	}
	if st.GPUHours != tot.GPUHours {
		t.Errorf("status reserves %g GPU-hours, the run %g: the updates' holds are left out", st.GPUHours, tot.GPUHours)
	}

	// Interrupted while step 3's update is in flight, then resumed: the
	// interrupted update is held once and charged once.
	ctx, cancel := context.WithCancel(context.Background())
	cut := &cancelAt{fakeUpdater: slow(), step: 3, cancel: cancel}
	if _, err := Run(ctx, updateCapPlan(), Options{ID: "cut", Dir: dir, Plugins: updateLoader(cut)}); err == nil {
		t.Fatal("the run was not interrupted")
	}
	got, err := runPlan(t, nil, dir, "cut", updateLoader(slow()), true)
	if err != nil {
		t.Fatal(err)
	}
	g := got.Totals
	if g.GPUHours != tot.GPUHours || g.USD != tot.USD || g.PolicyUpdates != tot.PolicyUpdates || g.MeasuredGPUHours != tot.MeasuredGPUHours ||
		g.MeasuredUpdateGPUHours != tot.MeasuredUpdateGPUHours || g.UpdateOverruns != tot.UpdateOverruns || g.OverrunGPUHours != tot.OverrunGPUHours {
		t.Errorf("resumed totals %+v\nuninterrupted %+v", g, tot)
	}
}

// cutNames reports whether a cut of phase says why.
func cutNames(cuts []PhaseCut, phase, why string) bool {
	for _, c := range cuts {
		if c.Phase == phase && strings.Contains(c.Reason, why) {
			return true
		}
	}
	return false
}
