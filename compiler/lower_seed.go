package compiler

import (
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/spec"
)

// seedRecords adds the seed records phase: seed_runs proposals spread over
// the environments by their train tasks, each built and, when it builds,
// run for real.
func (pl *phaseLowering) seedRecords() {
	lv, s := pl.lv, pl.lv.s
	if s.Records == nil {
		return
	}
	seed := seedRuns(s)
	r := pl.newPhase(plan.PhaseSeedRecords, plan.PhaseSeedRecords, "", s.Records.Range)
	r.ph.Select = s.Records.Select.V
	r.ph.Proposer, r.ph.Builder = s.Records.Proposer.Name, s.Records.Builder.Name
	ok := lv.built(s.Records.Builder)
	names, w := lv.splitWeights("train")
	r.ph.Proposals = map[string]int{}
	for i, n := range spread(seed, w) {
		if n > 0 {
			r.ph.Proposals[names[i]] = n
		}
	}
	forScen(func(sc int) {
		lv.spreadRuns(r, sc, float64(seed)*ok[sc], "train")
		perRun(r, sc, float64(seed), s.Records.Proposer, s.Records.Builder)
		r.cand[sc] = float64(seed)
	})
}

// perRun counts a proposal and its build per real run of a phase, on the
// roles the phase is bound to.
func perRun(r *rawPhase, sc int, runs float64, proposer, builder spec.Ref) {
	r.addLLM(proposer.Name, sc, runs)
	if builder.Set {
		r.addLLM(builder.Name, sc, runs)
	}
}
