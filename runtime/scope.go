package runtime

import (
	"math"

	"github.com/assay-lang/assay/compiler/plan"
)

// scope is what a reservation is made under: the plan phase it is charged
// to, and what is held back for the phases after it. A phase gets it as a
// value and passes it to every call that reserves, so no phase changes
// another's.
type scope struct {
	phase string
	floor int // real runs held back for later phases
	hold  plan.HoldBack
}

// in is the scope for what runs inside this phase under another name (a
// calibration round, charged to its own name under its RL phase's
// hold-back).
func (sc scope) in(phase string) scope {
	sc.phase = phase
	return sc
}

// scopeFor is what phase i reserves under: the plan's hold_back, which the
// compiler decides. A plan without one (edited by hand) holds back the
// most real runs of the later phases' counts, as plans before hold_back
// did.
func scopeFor(v *plan.Variant, loops map[string]*plan.Loop, i int, ph *plan.Phase) scope {
	sc := scope{phase: ph.Name}
	if hb := ph.HoldBack; hb != nil {
		sc.floor, sc.hold = hb.RealRuns, *hb
		return sc
	}
	for _, later := range v.Phases[i+1:] {
		sc.floor += heldBack(loops, later)
	}
	sc.hold = plan.HoldBack{RealRuns: sc.floor}
	return sc
}

// heldBack is what the phases before ph hold back for it: the most real
// runs its counts allow (its calibration rounds' included), so a phase
// with a fixed count (an evaluation) gets every run the plan gives it
// even when fewer builds fail than expected; for a loop that runs until
// the budget is spent, the least, since it spends what the others leave.
func heldBack(loops map[string]*plan.Loop, ph *plan.Phase) int {
	var rounds float64
	if ph.RL != nil && ph.RL.Calibration != nil {
		for _, r := range ph.RL.Calibration.Rounds {
			rounds += sumRuns(r.Calls.RealRuns)
		}
	}
	if ph.RL != nil {
		if l := loops[ph.RL.Loop]; l != nil && l.UntilBudget {
			var n float64
			for _, c := range ph.Calls.RealRuns {
				n += c.Low
			}
			return int(math.Ceil(n + rounds - 1e-9))
		}
	}
	return int(math.Ceil(sumRuns(ph.Calls.RealRuns) + rounds - 1e-9))
}
