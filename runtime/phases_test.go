package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
)

// A phase the runtime cannot run fails with the position of the spec
// block the plan says it came from, and every phase kind has a row in the
// dispatch table.
func TestPhaseErrorCarriesSource(t *testing.T) {
	r := newTestRunner(t)
	src := diag.Range{Filename: "spec.hcl", Start: diag.Pos{Line: 12, Column: 3}, End: diag.Pos{Line: 12, Column: 9}}
	r.v.Phases = []*plan.Phase{{Name: "evolution.gone", Kind: plan.PhaseEvolution, Evolution: &plan.EvolutionBody{Loop: "gone"}, Source: src}}
	err := r.execute()
	if err == nil || !strings.HasPrefix(err.Error(), "spec.hcl:12:3: phase evolution.gone: ") || !strings.Contains(err.Error(), `no loop "gone"`) {
		t.Fatalf("got %v, want the phase's error at spec.hcl:12:3", err)
	}
	r.v.Phases = []*plan.Phase{{Name: "odd", Kind: "odd"}}
	if err := r.execute(); err == nil || !strings.Contains(err.Error(), `unknown kind "odd"`) {
		t.Fatalf("an unknown phase kind: got %v", err)
	}
	r.v.Phases = []*plan.Phase{{Name: "evolution.bare", Kind: plan.PhaseEvolution, Source: src}}
	if err := r.execute(); err == nil || !strings.Contains(err.Error(), "has 0 bodies") {
		t.Fatalf("a phase without its body: got %v", err)
	}
	r.v.Phases = []*plan.Phase{{Name: "evolution.two", Kind: plan.PhaseEvolution, Evolution: &plan.EvolutionBody{Loop: "gone"}, RL: &plan.RLBody{Loop: "gone"}, Source: src}}
	if err := r.execute(); err == nil || !strings.Contains(err.Error(), "has 2 bodies") {
		t.Fatalf("a phase with two bodies: got %v", err)
	}
	for _, k := range []string{plan.PhaseBaselines, plan.PhaseSeedRecords, plan.PhaseRL, plan.PhaseEvolution, plan.PhaseEvaluation, plan.PhaseCriticTraining, plan.PhaseCriticEval} {
		if phaseKinds[k] == nil {
			t.Errorf("phase kind %q has no row in the dispatch table", k)
		}
	}
}

// A continual critic's schedule is the plan's: an update before a round
// the loop never runs, of a task outside its split, or of a kind the plan
// does not describe is refused when the phase is bound, before any call
// or run; the schedule the compiler would write is accepted.
func TestContinualScheduleRefused(t *testing.T) {
	mk := func(u plan.ContinualUpdate, sft bool) *plan.Plan {
		p := evolvePlan()
		ct := &plan.CriticTraining{Name: "evolve.continual", Critic: "screen", Role: "critic", Labels: "3way",
			GRPO: &plan.CriticUpdate{Algorithm: "grpo", Adapter: "evolve-tgrpo", Batch: 2, Group: 2}}
		if sft {
			ct.SFT = &plan.CriticUpdate{Algorithm: "sft", Adapter: "evolve-sdft"}
		}
		p.Variants[0].Phases[0].Evolution.Continual = &plan.CriticContinual{Scope: plan.ContinualTask, GRPOPairs: 2, SDFTPairs: 2, Training: ct, Updates: []plan.ContinualUpdate{u}}
		return p
	}
	t0 := plan.TaskRef{Env: "tiny", Task: "t0"}
	for name, c := range map[string]struct {
		u   plan.ContinualUpdate
		sft bool
	}{
		"a holdout task":  {plan.ContinualUpdate{Task: plan.TaskRef{Env: "tiny", Task: "h0"}, Round: 1, Key: 1, Kind: plan.UpdateGRPO}, true},
		"a round past 3":  {plan.ContinualUpdate{Task: t0, Round: 3, Key: 3, Kind: plan.UpdateGRPO}, true},
		"an sdft, no sft": {plan.ContinualUpdate{Task: t0, Round: 1, Key: 1, Kind: plan.UpdateSDFT}, false},
		"an unknown kind": {plan.ContinualUpdate{Task: t0, Round: 1, Key: 1, Kind: "dpo"}, true},
	} {
		l := &testLoader{trainer: newFakeTrainer()}
		_, err := runPlan(t, mk(c.u, c.sft), t.TempDir(), "c", l, false)
		if err == nil || !strings.Contains(err.Error(), "never runs") {
			t.Errorf("%s: %v, want the update refused", name, err)
		}
		if n := l.trainer.started(); n != 0 {
			t.Errorf("%s: %d real runs before the refusal", name, n)
		}
	}
	l := &testLoader{trainer: newFakeTrainer()}
	if _, err := runPlan(t, mk(plan.ContinualUpdate{Task: t0, Round: 2, Key: 2, Kind: plan.UpdateGRPO}, false), t.TempDir(), "ok", l, false); err != nil {
		t.Errorf("a schedule of one T-GRPO update before round 2 of t0: %v", err)
	}
}
