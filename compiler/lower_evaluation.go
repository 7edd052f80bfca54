package compiler

import (
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/spec"
)

// evalShape is what an evaluation runs on each task of each arm: k
// proposals, max(avg_at, best_at), on each of its states (at least one).
// The plan states both, so the runtime runs what is counted here.
func evalShape(ev *spec.Evaluation) (k, states int) {
	return max(ev.AvgAt.V, ev.BestAt.V), max(ev.States.V, 1)
}

// evaluation adds the evaluation phase: every arm makes k proposals per
// state of every task of the split; each is built, and what builds is
// predicted (with a predictor) and run.
func (pl *phaseLowering) evaluation() {
	lv, s := pl.lv, pl.lv.s
	ev := s.Evaluation
	if ev == nil {
		return
	}
	r := pl.newPhase(plan.PhaseEvaluation, plan.PhaseEvaluation, ev.Range)
	k, states := evalShape(ev)
	r.ph.Evaluation = &plan.Evaluation{Proposer: ev.Proposer.Name, Builder: ev.Builder.Name, Split: ev.Split.V, AvgAt: ev.AvgAt.V, BestAt: ev.BestAt.V,
		K: k, States: states, Normalize: ev.Normalize.V, Arms: evalArms(ev), Predictor: ev.Predictor.Name}
	r.repairing(lv, ev.Builder)
	perArm := float64(states * k)
	arms := evalArms(ev)
	ok := lv.built(ev.Builder)
	forScen(func(sc int) {
		for _, e := range s.Environments {
			tasks := float64(envTaskCount(e, ev.Split.V))
			for _, a := range arms {
				n := tasks * perArm
				r.addRuns(e.Name, sc, n*ok[sc])
				r.cand[sc] += n
				r.addLLM(a.Proposer, sc, n)
				if ev.Builder.Set {
					r.addBuilds(ev.Builder.Name, sc, n, ok[sc], lv.repairs(0))
				}
				if ev.Predictor.Set {
					r.addLLM(ev.Predictor.Name, sc, n*ok[sc])
				}
			}
		}
	})
}
