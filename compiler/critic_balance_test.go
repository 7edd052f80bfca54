package compiler

import (
	"slices"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// The full-scale spec balances its GRPO pool as the paper does (improve,
// tie and lose, by label3, for its 5-way critic); the plan carries it and
// the step's pairs, and so the priced calls, are unchanged. 5-way classes
// of a 5-way critic are read from label5.
func TestCriticBalanceLowers(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/critic-train.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	ct := p.Variants[0].PhaseOf(plan.PhaseCriticTraining).CriticTraining
	if b := ct.GRPO.Balance; b == nil || b.Space != "3way" || !slices.Equal(b.Classes, []string{"improve", "tie", "lose"}) {
		t.Fatalf("balance %+v, want 3way improve, tie, lose", b)
	}
	if got := p.Variants[0].Phases[0].Calls.LLM["critic"]; got != plan.Exact(300*256*8) {
		t.Errorf("critic GRPO calls %+v, want 614,400 as without balance", got)
	}
	s := loadSpec(t, "../specs/critic-train.hcl")
	s.CriticTrainings[0].GRPO.Balance.V = []string{"BigWin", "Tie", "Lose"}
	p, ds = Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	if b := p.Variants[0].PhaseOf(plan.PhaseCriticTraining).CriticTraining.GRPO.Balance; b.Space != "5way" {
		t.Errorf("5-way classes lowered as %+v", b)
	}
	s = loadSpec(t, "../specs/critic-train.hcl")
	s.CriticTrainings[0].GRPO.Balance = spec.Val[[]string]{}
	p, _ = Compile(s, Options{})
	if b := p.Variants[0].PhaseOf(plan.PhaseCriticTraining).CriticTraining.GRPO.Balance; b != nil {
		t.Errorf("no balance lowered as %+v", b)
	}
}

// A balance that cannot work is refused at its field.
func TestCriticBalanceRefusals(t *testing.T) {
	at := diag.Range{Filename: "t.hcl", Start: diag.Pos{Line: 1, Column: 1}}
	bal := func(classes ...string) func(*spec.Spec) {
		return func(s *spec.Spec) { s.CriticTrainings[0].GRPO.Balance = spec.Of(classes, at) }
	}
	cases := []struct {
		name string
		edit func(s *spec.Spec)
		code string
	}{
		{"not a label", bal("improve", "better"), CodeEnum},
		{"two spaces", bal("improve", "Lose"), CodeEnum},
		{"5-way classes of a 3-way critic", func(s *spec.Spec) {
			bal("BigWin", "Lose")(s)
			s.Critics[0].Labels = spec.Of("3way", at)
		}, CodeEnum},
		{"a class twice", bal("improve", "lose", "improve"), CodeRange},
		{"one class", bal("lose"), CodeRange},
		{"fewer pairs than classes", func(s *spec.Spec) {
			bal("BigWin", "MediumWin", "SmallWin", "Tie", "Lose")(s)
			s.CriticTrainings[0].GRPO.Batch = spec.Of(4, at)
		}, CodeRange},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, "../specs/critic-train.hcl", c.edit, c.code) })
	}
}
