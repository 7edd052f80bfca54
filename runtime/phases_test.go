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
