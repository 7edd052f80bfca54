package compiler

import (
	"testing"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// The full-scale continual critic makes, over 29 tasks x 10 rounds, an
// SDFT update before every round but the first and a T-GRPO update every
// second one: at most 289 and 144, none at least; its teacher's and
// critic's calls are the evolution phase's, and the estimate prices the
// updates. enabled = false plans none of it.
func TestContinualLowersAndPrices(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/critic-continual.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v := p.Variants[0]
	cc := v.Loops[0].Continual
	if cc == nil || cc.Role != "critic" || cc.Teacher != "teacher" || cc.Labels != "3way" || cc.GRPOEvery != 2 || cc.GRPOPairs != 6 || cc.SDFTEvery != 1 || cc.SDFTPairs != 3 {
		t.Fatalf("continual %+v", cc)
	}
	if cc.SFT.Updates != (plan.Count{Low: 0, Expected: 289, High: 289}) || cc.GRPO.Updates != (plan.Count{Low: 0, Expected: 144, High: 144}) || cc.GRPO.Group != 16 || cc.SFT.GPUHours != 0.4 {
		t.Fatalf("updates: sft %+v, grpo %+v", cc.SFT, cc.GRPO)
	}
	var evo *plan.Phase
	for _, ph := range v.Phases {
		if ph.Kind == plan.PhaseEvolution {
			evo = ph
		}
	}
	if got := evo.Calls.LLM["teacher"]; got != (plan.Count{Low: 0, Expected: 867, High: 867}) {
		t.Errorf("teacher calls in the evolution %+v, want 0 to 289 x 3", got)
	}
	r := estimate.Estimate(p)
	if u := r.CriticUpdates["evolve.continual.grpo"]; u == nil || !near(u.GPUHours, plan.Count{Low: 0, Expected: 144 * 0.4, High: 144 * 0.4}) || u.USD.High != 144*0.4*v.Prices["H100"] {
		t.Errorf("T-GRPO updates %+v", u)
	}

	// The frozen arm: the block with enabled = false alone (its other
	// fields would take no effect, and are refused).
	s := loadSpec(t, "../specs/critic-continual.hcl")
	s.Loops[0].Continual = &spec.CriticContinual{Enabled: spec.Val[bool]{V: false, Set: true}, Range: s.Loops[0].Continual.Range}
	frozen, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	fv := frozen.Variants[0]
	if fv.Loops[0].Continual != nil {
		t.Errorf("the frozen arm adapts its critic: %+v", fv.Loops[0].Continual)
	}
	for _, ph := range fv.Phases {
		if ph.Kind == plan.PhaseEvolution && !ph.Calls.LLM["teacher"].IsZero() {
			t.Errorf("the frozen arm calls the teacher in the loop: %+v", ph.Calls.LLM["teacher"])
		}
		if ph.Kind == plan.PhaseEvolution && ph.Calls.LLM["critic"].High >= evo.Calls.LLM["critic"].High {
			t.Errorf("the frozen arm's critic calls %+v are not below the continual arm's %+v", ph.Calls.LLM["critic"], evo.Calls.LLM["critic"])
		}
	}
}

// What a continual block cannot do is refused at the field.
func TestContinualRefusals(t *testing.T) {
	at := diag.Range{Filename: "t.hcl", Start: diag.Pos{Line: 1, Column: 1}}
	cc := func(s *spec.Spec) *spec.CriticContinual { return s.Loops[0].Continual }
	cases := []struct {
		name string
		edit func(s *spec.Spec)
		code string
	}{
		{"no screen", func(s *spec.Spec) { s.Loops[0].Screen = spec.Ref{} }, CodeNotApplicable},
		{"5-way SDFT", func(s *spec.Spec) {
			for _, c := range s.Critics {
				c.Labels = spec.Of("5way", at)
			}
		}, CodeNotApplicable},
		{"nothing trained", func(s *spec.Spec) {
			cc(s).GRPOEvery, cc(s).SDFTEvery = spec.Of(0, at), spec.Of(0, at)
			cc(s).GRPOPairs, cc(s).Group, cc(s).SDFTPairs, cc(s).Teacher = spec.Val[int]{}, spec.Val[int]{}, spec.Val[int]{}, spec.Ref{}
		}, CodeMissing},
		{"pairs of an update turned off", func(s *spec.Spec) { cc(s).GRPOEvery = spec.Of(0, at) }, CodeNotApplicable},
		{"no teacher", func(s *spec.Spec) { cc(s).Teacher = spec.Ref{} }, CodeMissing},
		{"teacher of another kind", func(s *spec.Spec) { cc(s).Teacher.Name = "proposer" }, CodeRefKind},
		{"group of one", func(s *spec.Spec) { cc(s).Group = spec.Of(1, at) }, CodeRange},
		{"negative every", func(s *spec.Spec) { cc(s).SDFTEvery = spec.Of(-1, at) }, CodeRange},
		{"unpriced GPU", func(s *spec.Spec) { cc(s).GPU = spec.Of("TPU9", at) }, CodePriceMissing},
		{"offline critic, a trainer", func(s *spec.Spec) { offlineCritic(s, at) }, CodeCriticTrainer},
		{"gpu without trainer", func(s *spec.Spec) {
			offlineCritic(s, at)
			cc(s).Trainer = spec.Ref{}
		}, CodeNotApplicable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, "../specs/critic-continual.hcl", c.edit, c.code) })
	}
}

// proveContinualEnabled: enabled = false, alone in its block, plans no
// continual critic where the same block enabled plans one. (The generic
// walk cannot show it: turning a written block off refuses its other
// fields, which take no effect in a frozen block.)
func proveContinualEnabled(t *testing.T) {
	plans := map[bool]*plan.Plan{}
	for _, on := range []bool{true, false} {
		s := loadSpec(t, "../specs/critic-continual.hcl")
		if !on {
			old := s.Loops[0].Continual
			s.Loops[0].Continual = &spec.CriticContinual{Enabled: spec.Val[bool]{V: false, Set: true, Range: old.Enabled.Range}, Range: old.Range}
		}
		p, ds := Compile(s, Options{})
		if ds.HasErrors() {
			t.Fatalf("enabled = %v: %v", on, ds.Err())
		}
		plans[on] = p
	}
	if plans[true].Variants[0].Loops[0].Continual == nil || plans[false].Variants[0].Loops[0].Continual != nil || plans[true].Hash == plans[false].Hash {
		t.Errorf("enabled does not decide the continual critic: on %+v, off %+v", plans[true].Variants[0].Loops[0].Continual, plans[false].Variants[0].Loops[0].Continual)
	}
}
