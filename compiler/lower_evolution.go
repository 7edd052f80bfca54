package compiler

import (
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// verified is the real runs of one island-round: verifications_per_round,
// or fewer when fewer ideas build (a share ok of them). A loop that
// verifies routed ideas runs every routed idea (a share frac of those that
// build) and fills verifications_per_round from the rest; lo and hi bound
// what one round can make whatever share its critic routes: at least
// verifications_per_round (or every idea that built), at most every
// routed idea and verifications_per_round more.
func verified(l *spec.Loop, ok, frac float64, routes bool) (n, lo, hi float64) {
	v, built := float64(l.Verifications.V), float64(ideasPerRound(l))*ok
	n = math.Min(v, built)
	if !routes {
		return n, n, n
	}
	r := built * frac
	return r + math.Min(v, built-r), n, math.Min(built, r+v)
}

// maxChildrenPerParent bounds an evolution loop's children_per_parent.
const maxChildrenPerParent = 1 << 12

// childrenPerParent checks an evolution loop's children_per_parent: at
// least 0, at most maxChildrenPerParent.
func (k *checker) childrenPerParent(l *spec.Loop) {
	c := l.ChildrenPerParent
	k.intMin(c, 0, "children_per_parent")
	if c.V > maxChildrenPerParent {
		k.add(diag.Errorf(CodeRange, c.Range, "children_per_parent is at most %d, got %d", maxChildrenPerParent, c.V).
			WithDetail("write children_per_parent = 20, the critics paper's"))
	}
}

// childRuns is the second stage of a pair collection per program the
// loop verified (n a round, lo and hi its bounds): children_per_parent
// children proposed, of which a share ok build and run; it returns the
// children proposed and the runs, expected, low and high.
func childRuns(l *spec.Loop, ok, n, lo, hi float64) (kids, runs, runsLo, runsHi float64) {
	c := float64(evoChildren.of(l.ChildrenPerParent))
	return n * c, n * c * ok, lo * c * ok, hi * c * ok
}

// ideasPerRound is the ideas an evolution loop makes per island-round:
// ideas_per_round is the pool a screen critic picks the verified ones
// from. Without a screen nothing chooses, so the loop makes only the ideas
// it verifies, as vanilla OpenEvolve does, and pays for no idea it throws
// away (a preset's ideas_per_round is for a screened loop; applies refuses
// one the spec writes).
func ideasPerRound(l *spec.Loop) int {
	if !l.Screen.Set {
		return l.Verifications.V
	}
	return l.Ideas.V
}

// evoRouted is the share of ideas an evolution loop's screen routes per
// scenario, and whether the loop verifies them.
func (lv *lowering) evoRouted(l *spec.Loop) (vec, bool) {
	if !routesWith(l) {
		return vec{}, false
	}
	cr := lv.x.critics[l.Screen.Name]
	if !critRoutes(cr) {
		return vec{}, false
	}
	return lv.routed(cr), true
}

// archiveFeatures is an evolution loop's MAP-Elites dimensions, sorted by
// name, without those given 0 bins.
func archiveFeatures(l *spec.Loop) []plan.Feature {
	var out []plan.Feature
	for _, name := range keys(l.FeatureBins.V) {
		if n := int(l.FeatureBins.V[name]); n > 0 {
			out = append(out, plan.Feature{Name: name, Bins: n})
		}
	}
	return out
}

// settleEvolution settles an evolution loop's figures: its steps are its
// rounds, and its verified ideas are fixed real runs.
func settleEvolution(pl *phaseLowering, lp *loopPlan) {
	lv, l := pl.lv, lp.l
	forScen(func(sc int) { lp.steps[sc] = float64(l.Rounds.V) })
	tasks := countSplit(lv.s, l.Split.V)
	ok := lv.built(l.Builder)
	frac, routes := lv.evoRouted(l)
	forScen(func(sc int) {
		n, lo, hi := verified(l, ok[sc], frac[sc], routes)
		_, kids, _, _ := childRuns(l, ok[sc], n, lo, hi)
		runs := float64(tasks) * float64(l.Islands.V) * float64(l.Rounds.V) * (n + kids)
		pl.fixed[sc] += runs
		if pl.budgetLoop == nil {
			pl.fixedRepairs[sc] += runs * (lv.repairHigh(l.Builder, sc) - 1)
		}
	})
}

// evolutionLoopFields sets the archive and migration of an evolution loop.
func evolutionLoopFields(_ *phaseLowering, lp *loopPlan, out *plan.Loop) {
	l := lp.l
	out.TopPrograms, out.Features = l.TopPrograms.V, archiveFeatures(l)
	if len(out.Features) > 0 {
		out.DiversePrograms = l.DiversePrograms.V
	}
	if l.MigrationEvery.Set && l.Islands.V > 1 {
		out.MigrationRate = l.MigrationRate.V
	}
	out.ChildrenPerParent = evoChildren.of(l.ChildrenPerParent)
}

// evolutionPhase adds an evolution loop's phase: per island-round of every
// task of its split, ideas_per_round ideas proposed and built; those that
// build are summarized and judged when a critic screens them, and the
// verified ones run for real.
func evolutionPhase(pl *phaseLowering, lp *loopPlan) {
	lv, s, l := pl.lv, pl.lv.s, lp.l
	r := pl.newPhase(plan.PhaseEvolution+"."+l.Name, plan.PhaseEvolution, l.NameRange)
	r.ph.Evolution = &plan.EvolutionBody{Loop: l.Name, Continual: lv.continual(l)}
	r.repairing(lv, l.Builder)
	cr := lv.judge(l)
	ok := lv.built(l.Builder)
	frac, routes := lv.evoRouted(l)
	forScen(func(sc int) {
		for _, e := range s.Environments {
			ir := float64(envTaskCount(e, l.Split.V)) * float64(l.Islands.V) * float64(l.Rounds.V)
			ideas := ir * float64(ideasPerRound(l))
			n, lo, hi := verified(l, ok[sc], frac[sc], routes)
			// Stage 2 of a pair collection: children of every verified
			// program, proposed and built, those that build run.
			kids, kr, krLo, krHi := childRuns(l, ok[sc], n, lo, hi)
			r.addRuns(e.Name, sc, ir*(n+kr))
			r.addRunBounds(e.Name, sc, ir*(lo+krLo), ir*(hi+krHi))
			r.cand[sc] += ideas + ir*kids
			r.addLLM(l.Proposer.Name, sc, ideas+ir*kids)
			if l.Builder.Set {
				r.addBuilds(l.Builder.Name, sc, ideas+ir*kids, ok[sc], lv.repairs(l.Repairs.V))
			}
			if cr != nil {
				// Only ideas that build are summarized and judged; at the
				// high, every repair of each verified idea's run is
				// summarized too.
				if l.Summarizer.Set {
					r.addLLM(l.Summarizer.Name, sc, ideas*ok[sc]+ir*hi*(lv.repairHigh(l.Builder, sc)-1))
				}
				r.addLLM(cr.Role.Name, sc, ideas*ok[sc]*float64(cr.Votes.V))
			}
		}
	})
}
