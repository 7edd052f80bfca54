package compiler

import (
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// The laptop two-stage pair collection lowers children_per_parent into
// its loop, and prices stage 2 in the evolution phase: 4 tasks x 10 steps
// x 1 idea (5% of builds fail: 0.95 verified a step), then 20 children of
// each verified program, of which 0.95 build and run.
func TestPairCollectionLowersAndPrices(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/laptop/critic-pairs.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v := p.Variants[0]
	if l := v.Loops[0]; l.ChildrenPerParent != 20 || l.Islands != 1 || l.Rounds != 10 || l.Verifications != 1 {
		t.Fatalf("loop %+v", l)
	}
	var ph *plan.Phase
	for _, x := range v.Phases {
		if x.Kind == plan.PhaseEvolution {
			ph = x
		}
	}
	if ph == nil {
		t.Fatal("no evolution phase")
	}
	// Builds fail at 0 (low), 0.05 (expected) and 0.5 (high): the high
	// scenario counts runs as if every build ran.
	if got, want := ph.Calls.RealRuns["tiny"], (plan.Count{Low: 4 * 10 * (0.5 + 0.5*20*0.5), Expected: 4 * 10 * (0.95 + 0.95*20*0.95), High: 4 * 10 * 21}); !near(got, want) {
		t.Errorf("real runs %+v, want %+v", got, want)
	}
	if got, want := ph.Calls.Candidates, (plan.Count{Low: 4 * 10 * (1 + 0.5*20), Expected: 4 * 10 * (1 + 0.95*20), High: 4 * 10 * 21}); !near(got, want) {
		t.Errorf("candidates %+v, want %+v", got, want)
	}
	if got := ph.Calls.LLM["proposer"]; !near(got, ph.Calls.Candidates) {
		t.Errorf("proposer calls %+v, want one per candidate %+v", got, ph.Calls.Candidates)
	}
	// Without children_per_parent the same loop is stage 1 alone.
	s := loadSpec(t, "../specs/laptop/critic-pairs.hcl")
	s.Loops[0].ChildrenPerParent = spec.Val[int]{}
	q, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	for _, x := range q.Variants[0].Phases {
		if x.Kind == plan.PhaseEvolution && !near(x.Calls.RealRuns["tiny"], plan.Count{Low: 20, Expected: 38, High: 40}) {
			t.Errorf("stage 1 alone: real runs %+v", x.Calls.RealRuns["tiny"])
		}
	}
}

// children_per_parent is an evolution loop's, at least 0 and bounded;
// min_improving_children at least 0; each refused at its field.
func TestPairCollectionRefusals(t *testing.T) {
	at := diag.Range{Filename: "t.hcl", Start: diag.Pos{Line: 1, Column: 1}}
	for _, c := range []struct {
		name, path string
		edit       func(s *spec.Spec)
		code       string
	}{
		{"negative children", "../specs/laptop/critic-pairs.hcl", func(s *spec.Spec) { s.Loops[0].ChildrenPerParent = spec.Of(-1, at) }, CodeRange},
		{"too many children", "../specs/laptop/critic-pairs.hcl", func(s *spec.Spec) { s.Loops[0].ChildrenPerParent = spec.Of(maxChildrenPerParent+1, at) }, CodeRange},
		{"children in an rl loop", "../specs/laptop/verify-all.hcl", func(s *spec.Spec) { s.Loops[0].ChildrenPerParent = spec.Of(20, at) }, CodeLoopField},
		{"negative filter of a training", "../specs/laptop/critic-train.hcl", func(s *spec.Spec) { s.CriticTrainings[0].MinImproving = spec.Of(-1, at) }, CodeRange},
		{"negative filter of a bench", "../specs/laptop/critic-train.hcl", func(s *spec.Spec) { s.CriticEvals[0].MinImproving = spec.Of(-1, at) }, CodeRange},
	} {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, c.path, c.edit, c.code) })
	}
}

// min_improving_children reaches the plan of a training and of a bench.
func TestMinImprovingLowers(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/laptop/critic-train.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v := p.Variants[0]
	if ct := v.PhaseOf(plan.PhaseCriticTraining).CriticTraining; ct.MinImproving != 3 {
		t.Errorf("training %+v", ct)
	}
	for _, ph := range v.Phases {
		if ph.CriticEval != nil && ph.CriticEval.MinImproving != 3 {
			t.Errorf("bench %+v", ph.CriticEval)
		}
	}
}
