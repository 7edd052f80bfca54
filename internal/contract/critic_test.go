package contract

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
)

// TestCriticTrainingRunsWithinItsEstimate runs specs/laptop/critic-train.hcl
// (teacher critiques, SFT and GRPO of the offline critic, then evolution
// screened by it) for real: every count, the teacher's calls and the
// critic's GRPO verdicts among them, stays inside the estimate, and the
// strata and updates are measured.
func TestCriticTrainingRunsWithinItsEstimate(t *testing.T) {
	t.Parallel()
	p, vi, res, _ := runShared(t, filepath.Join(specsDir(t), "laptop", "critic-train.hcl"), "")
	checkResult(t, p, vi, res)
	m := res.Totals.Measured.CriticTrainings["critic"]
	if m == nil || m.Sampled+m.Revised+m.Guided+m.Dropped != 160 || m.Updates < 1 || m.GRPOSteps != 4 || m.Verdicts != 4*8*4 {
		t.Fatalf("critic training measured %+v: want 160 pairs critiqued, an update, 4 GRPO steps of 128 verdicts", m)
	}
	// The GRPO pool is class-balanced: half the verdicts are on improve
	// pairs.
	if b := m.ByLabel; b.Improve.Verdicts != 64 || b.Lose.Verdicts != 64 || b.Tie.Verdicts != 0 {
		t.Errorf("GRPO verdicts by label %+v, want 64 improve and 64 lose", b)
	}
	if r := res.Totals.Measured.Roles["teacher"]; r == nil || r.Calls < 640 || r.Calls > 1440 {
		t.Errorf("teacher calls %+v, want 640 to 1440", r)
	}
}

// cuttingLLM is the offline model that cancels its run at its n-th call,
// as a kill would stop it there.
type cuttingLLM struct {
	offline.Model
	calls  *atomic.Int64
	at     int64
	cancel context.CancelFunc
}

func (c cuttingLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if c.calls.Add(1) == c.at {
		c.cancel()
	}
	return c.Model.Complete(ctx, req)
}

// runCut runs p with opts, the offline model stopping the run at its LLM
// call at, and fails unless the run was interrupted.
func runCut(t *testing.T, p *plan.Plan, opts runtime.Options, at int64) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	opts.Plugins = runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		if pl.Source == "builtin:offline" {
			return inst{l: cuttingLLM{calls: &calls, at: at, cancel: cancel}}, nil
		}
		return loader().Open(ctx, pl)
	})
	res, _ := runtime.Run(ctx, p, opts)
	if res == nil || res.State != runtime.StateInterrupted {
		t.Fatalf("cut at call %d: the run was not interrupted: %+v", at, res)
	}
}

// criticState is the critic's state after the run's last critic update.
func criticState(t *testing.T, dir string) string {
	t.Helper()
	j, err := journal.OpenReadOnly(filepath.Join(dir, "c", runtime.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	evs, err := j.Events(journal.KindPolicy)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, e := range evs {
		if strings.HasPrefix(e.Key, "critic_training/") && !strings.HasSuffix(e.Key, "/reserve") {
			last = string(e.Data)
		}
	}
	return last
}

// TestCriticTrainingResumes stops the laptop critic training in its
// teacher critiques and in its GRPO steps and resumes it: the strata, the
// updates and the critic it ends with are the uninterrupted run's.
func TestCriticTrainingResumes(t *testing.T) {
	t.Parallel()
	// The uninterrupted run is TestCriticTrainingRunsWithinItsEstimate's.
	p, _, res, whole := runShared(t, filepath.Join(specsDir(t), "laptop", "critic-train.hcl"), "")
	want, wantState := *res.Totals.Measured.CriticTrainings["critic"], criticState(t, whole)
	for _, at := range []int64{60, 170} { // teacher calls are 80 to 180; GRPO's 128 follow
		dir := t.TempDir()
		runCut(t, p, runtime.Options{ID: "c", Dir: dir}, at)
		res, err := runtime.Run(context.Background(), nil, runtime.Options{ID: "c", Dir: dir, Plugins: loader(), Resume: true})
		if err != nil || res.State != runtime.StateFinished {
			t.Fatalf("cut at call %d: resume: %v", at, err)
		}
		if got := *res.Totals.Measured.CriticTrainings["critic"]; got != want {
			t.Errorf("cut at call %d, resumed: %+v, uninterrupted: %+v", at, got, want)
		}
		if got := criticState(t, dir); got != wantState {
			t.Errorf("cut at call %d, resumed: the critic ends as %s, uninterrupted %s", at, got, wantState)
		}
	}
}
