package compiler

import (
	"github.com/assay-lang/assay/compiler/plan"
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
	r := pl.newPhase(plan.PhaseSeedRecords, plan.PhaseSeedRecords, s.Records.Range)
	body := &plan.SeedRecordsBody{Select: s.Records.Select.V, Proposer: s.Records.Proposer.Name, Builder: s.Records.Builder.Name, Proposals: map[string]int{}}
	r.ph.SeedRecords = body
	r.repairing(lv, s.Records.Builder)
	ok := lv.built(s.Records.Builder)
	names, w := lv.splitWeights("train")
	for i, n := range spread(seed, w) {
		if n > 0 {
			body.Proposals[names[i]] = n
		}
	}
	forScen(func(sc int) {
		lv.spreadRuns(r, sc, float64(seed)*ok[sc], "train")
		r.addLLM(s.Records.Proposer.Name, sc, float64(seed))
		if s.Records.Builder.Set {
			r.addBuilds(s.Records.Builder.Name, sc, float64(seed), ok[sc], lv.repairs(0))
		}
		r.cand[sc] = float64(seed)
	})
}
