package compiler

import (
	"testing"

	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// A summarizer summarizes each repair of a run as it summarized the first
// build (so a pair describes the program measured): the high of its calls
// grows with repairs by exactly the real runs repairs add, and not at all
// without them.
func TestRunRepairsSummarized(t *testing.T) {
	highs := func(repairs int) (summarizer, runs float64) {
		t.Helper()
		s, _, ds := load.Load("../specs/laptop/code/critic-evolve.hcl", load.Options{})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		for _, e := range s.Environments {
			if e.Source != nil {
				e.Source.Repairs = spec.Val[int]{V: repairs, Set: true, Range: e.Source.Repairs.Range}
			}
		}
		p, ds := Compile(s, Options{})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		for _, ph := range p.Variants[0].Phases {
			if ph.Name != "evolution.evolve" {
				continue
			}
			for _, c := range ph.Calls.RealRuns {
				runs += c.High
			}
			return ph.Calls.LLM["summarizer"].High, runs
		}
		t.Fatal("no phase evolution.evolve")
		return 0, 0
	}
	s0, r0 := highs(0)
	s2, r2 := highs(2)
	if r2 <= r0 {
		t.Fatalf("repairs add no real runs: %v with, %v without", r2, r0)
	}
	if s2-s0 != r2-r0 {
		t.Errorf("summarizer high %v with 2 repairs, %v without: %v more for %v more real runs", s2, s0, s2-s0, r2-r0)
	}
}
