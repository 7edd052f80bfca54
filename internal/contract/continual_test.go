package contract

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// continualRun is the uninterrupted run of the continual arm of
// specs/laptop/critic-continual.hcl, its plan and the arm's index.
func continualRun(t *testing.T) (*plan.Plan, int, *runtime.Result, string) {
	t.Helper()
	return runShared(t, filepath.Join(specsDir(t), "laptop", "critic-continual.hcl"), "enabled=true")
}

// TestContinualCriticRunsWithinItsEstimate runs both arms of the laptop
// frozen/continual ablation: every count stays inside the estimate, the
// continual arm makes SDFT and T-GRPO updates, at most the plan's, and
// the frozen arm none.
func TestContinualCriticRunsWithinItsEstimate(t *testing.T) {
	t.Parallel()
	p, vi, res, _ := continualRun(t)
	cc := p.Variants[vi].Loops[0].Continual
	if cc == nil || cc.SFT == nil || cc.GRPO == nil {
		t.Fatalf("the continual arm's loop has no continual critic: %+v", cc)
	}
	checkResult(t, p, vi, res)
	m := res.Totals.Measured.CriticTrainings[cc.Name]
	high := int(cc.SFT.Updates.High + cc.GRPO.Updates.High)
	if m == nil || m.Updates < 1 || m.Updates > high || m.GRPOSteps < 1 || m.GRPOSteps > int(cc.GRPO.Updates.High) {
		t.Fatalf("continual critic measured %+v: want 1 to %d updates and 1 to %v T-GRPO steps", m, high, cc.GRPO.Updates.High)
	}
	// Both arms train the critic alike first; the continual arm's teacher
	// is asked again during the loop, at most sdft_pairs a round.
	cont := res.Totals.Measured.Roles["teacher"]
	res, _ = checkRun(t, p, 1-vi)
	if _, ok := res.Totals.Measured.CriticTrainings[cc.Name]; ok {
		t.Errorf("the frozen arm adapted its critic: %+v", res.Totals.Measured.CriticTrainings)
	}
	if _, ok := res.Totals.Measured.CriticTrainings["critic"]; !ok {
		t.Errorf("the frozen arm did not train its critic first: %+v", res.Totals.Measured.CriticTrainings)
	}
	frozen := res.Totals.Measured.Roles["teacher"]
	if cont == nil || frozen == nil || cont.Calls <= frozen.Calls || float64(cont.Calls-frozen.Calls) > cc.SFT.Updates.High*float64(cc.SDFTPairs) {
		t.Errorf("teacher calls %+v (continual) and %+v (frozen): want the continual arm's 1 to %g more", cont, frozen, cc.SFT.Updates.High*float64(cc.SDFTPairs))
	}
}

// TestContinualCriticResumes stops the continual arm mid-loop and resumes
// it: its updates and the critic it ends with are the uninterrupted run's.
func TestContinualCriticResumes(t *testing.T) {
	t.Parallel()
	// The uninterrupted run is TestContinualCriticRunsWithinItsEstimate's.
	p, vi, res, whole := continualRun(t)
	v := p.Variants[vi]
	name := v.Loops[0].Continual.Name
	want, wantState := *res.Totals.Measured.CriticTrainings[name], criticState(t, whole)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	cut := runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		if pl.Source == "builtin:offline" {
			return inst{l: cuttingLLM{calls: &calls, at: 2000, cancel: cancel}}, nil // of about 3,800 calls
		}
		return loader().Open(ctx, pl)
	})
	res, _ = runtime.Run(ctx, p, runtime.Options{ID: "c", Dir: dir, Plugins: cut, Variant: v.Name})
	cancel()
	if res == nil || res.State != runtime.StateInterrupted {
		t.Fatalf("the run was not interrupted: %+v", res)
	}
	res, err := runtime.Run(context.Background(), nil, runtime.Options{ID: "c", Dir: dir, Plugins: loader(), Resume: true, Variant: v.Name})
	if err != nil || res.State != runtime.StateFinished {
		t.Fatalf("resume: %v", err)
	}
	if got := *res.Totals.Measured.CriticTrainings[name]; got != want {
		t.Errorf("resumed: %+v, uninterrupted: %+v", got, want)
	}
	if got := criticState(t, dir); got != wantState {
		t.Errorf("resumed: the critic ends as %s, uninterrupted %s", got, wantState)
	}
}
