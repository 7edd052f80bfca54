package compiler

import (
	"slices"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/spec"
)

// criticEvals adds a critic_eval phase per critic_eval block, after the
// critic trainings and before the loops, as the critics paper benches its
// trained critic before it screens: each critic judges each of the limit
// examples votes times, one call of its role per vote, and no real run is
// made. The count is the spec's, not the file's, so a spec prices before
// its file exists.
func (pl *phaseLowering) criticEvals() {
	s := pl.lv.s
	for _, ce := range s.CriticEvals {
		r := pl.newPhase(plan.PhaseCriticEval+"."+ce.Name, plan.PhaseCriticEval, ce.NameRange)
		pe := &plan.CriticEval{Data: ce.Data.V, Source: firstValid(ce.Data.Range, ce.NameRange), Split: splitOf(ce),
			Examples: ce.Limit.V, MinImproving: ceMinImproving.of(ce.MinImproving), K: slices.Clone(ce.K.V), Thresholds: slices.Clone(ceThresholds.of(ce.Thresholds))}
		if ce.Data.Range.Filename == SetSource {
			// A --set path is the working directory's, as a critic
			// training's pairs.
			pe.Data, pe.Source = repoPath(ce.Data), ce.NameRange
		}
		for _, c := range evalCriticsOf(s, ce) {
			pe.Critics = append(pe.Critics, c.Name)
			n := float64(pe.Examples * c.Votes.V)
			forScen(func(sc int) { r.addLLM(c.Role.Name, sc, n) })
		}
		r.ph.CriticEval = pe
	}
}

// evalCriticsOf is the critics a critic_eval evaluates, in the order its
// critics list names them (the spec's critics when it names none).
func evalCriticsOf(s *spec.Spec, ce *spec.CriticEval) []*spec.Critic {
	if !ce.Critics.Set {
		return s.Critics
	}
	var out []*spec.Critic
	for _, name := range ce.Critics.V {
		for _, c := range s.Critics {
			if c.Name == name {
				out = append(out, c)
			}
		}
	}
	return out
}
