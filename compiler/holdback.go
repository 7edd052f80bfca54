package compiler

import (
	"math"
	"slices"

	"github.com/assay-lang/assay/compiler/plan"
)

// spend is a phase's figures in the units the runtime reserves: real runs,
// GPU-hours at each run's high hours, dollars of those hours, of its LLM
// calls at their high tokens, and of its policy updates.
type spend struct{ runs, gpuHours, usd float64 }

func (a spend) add(b spend) spend {
	return spend{a.runs + b.runs, a.gpuHours + b.gpuHours, a.usd + b.usd}
}

// mul is a count times a cost, zero when either is (an unbounded count of
// free runs costs nothing).
func mul(n, cost float64) float64 {
	if n == 0 || cost == 0 {
		return 0
	}
	return n * cost
}

// phaseSpend is a phase's low and high figures; a loop that spends the
// budget wants only its low figure held back for it, since it spends
// whatever the others leave.
func phaseSpend(v *plan.Variant, ph *plan.Phase) (low, want spend) {
	envs := map[string]*plan.Environment{}
	for _, e := range v.Envs {
		envs[e.Name] = e
	}
	roles := map[string]*plan.Role{}
	for _, r := range v.Roles {
		roles[r.Name] = r
	}
	var high spend
	for name, c := range ph.Calls.RealRuns {
		gh, usd := 0.0, 0.0
		if e := envs[name]; e != nil {
			gh = e.GPUHours.High
			usd = mul(gh, v.Prices[e.GPU])
		}
		low = low.add(spend{c.Low, mul(c.Low, gh), mul(c.Low, usd)})
		high = high.add(spend{c.High, mul(c.High, gh), mul(c.High, usd)})
	}
	for name, c := range ph.Calls.LLM {
		r := roles[name]
		if r == nil {
			continue
		}
		// A call is settled at what it cost, so its low figure is its
		// dollars at the low token figures (the estimate's low).
		low.usd += mul(c.Low, (r.TokensIn.Low*r.PriceIn+r.TokensOut.Low*r.PriceOut)/1e6)
		high.usd += mul(c.High, (math.Ceil(r.TokensIn.High)*r.PriceIn+math.Ceil(r.TokensOut.High)*r.PriceOut)/1e6)
	}
	untilBudget := false
	for _, l := range v.Loops {
		if l.Name != ph.Loop || ph.Kind != plan.PhaseRL {
			continue
		}
		untilBudget = l.UntilBudget
		if u := l.Update; u != nil {
			low = low.add(spend{0, mul(u.Updates.Low, u.GPUHours), mul(u.Updates.Low, u.USD)})
			high = high.add(spend{0, mul(u.Updates.High, u.GPUHours), mul(u.Updates.High, u.USD)})
		}
	}
	if ct := criticTrainingOf(v, ph); ct != nil {
		l, h := criticTrainingSpend(ct)
		low, high = low.add(l), high.add(h)
	}
	if cc := continualOf(v, ph); cc != nil {
		l, h := continualSpend(cc)
		low, high = low.add(l), high.add(h)
	}
	if untilBudget {
		return low, low
	}
	return low, high
}

// holdBack decides what each phase of a variant leaves unspent under each
// cap for the phases after it (plan.Phase.HoldBack).
//
// GPU-hours and dollars: the later phases' low figures. Their real runs
// reserve their high hours, but their LLM calls are settled at what they
// cost, so holding back more would starve this phase for dollars a later
// one likely never spends.
//
// Real runs: a later phase's high figure (its low, for a loop that spends
// the budget, which takes what the others leave), so an evaluation gets
// every run the plan gives it even when fewer builds fail than expected;
// but never more than leaves the phases up to this one their own low
// figures, and never less than the later phases' low figures. So a cap
// below the plan's high (W_CAP_AT_RISK) shrinks the later phases and
// never starves an earlier one, such as the baselines every later run is
// measured against.
//
// A calibration phase runs inside its loop's phase, so it is counted with
// it and gets no hold-back of its own. repairs are, per phase, the runs of
// its high that repairs of candidates' runs add: no phase holds them back
// for a later one, which gets its first runs (a repair the budget cannot
// run then stops at the cap).
func holdBack(v *plan.Variant, repairs map[*plan.Phase]float64) {
	type group struct {
		ph        *plan.Phase
		low, want spend
		kind      string
	}
	var groups []*group
	for _, ph := range v.Phases {
		low, want := phaseSpend(v, ph)
		want.runs = math.Max(low.runs, want.runs-repairs[ph])
		if ph.Kind == plan.PhaseCalibration {
			var owner *group
			for _, g := range groups {
				if g.kind == plan.PhaseRL && slices.Contains(g.ph.Calibrations, ph.Name) {
					owner = g
					break
				}
			}
			if owner != nil {
				owner.low, owner.want = owner.low.add(low), owner.want.add(want)
				continue
			}
		}
		groups = append(groups, &group{ph: ph, low: low, want: want, kind: ph.Kind})
	}
	b := v.Budget
	floor := func(c, lowSoFar, lowLater, wantLater float64) float64 {
		if c <= 0 {
			return 0
		}
		return math.Max(lowLater, math.Min(wantLater, c-lowSoFar))
	}
	var lowSoFar spend
	for i, g := range groups {
		lowSoFar = lowSoFar.add(g.low)
		var lowLater, wantLater spend
		for _, h := range groups[i+1:] {
			lowLater, wantLater = lowLater.add(h.low), wantLater.add(h.want)
		}
		hb := &plan.HoldBack{}
		if b.RealRuns > 0 {
			// Whole runs: a later phase's low of 2.5 runs needs 3.
			runs := floor(float64(b.RealRuns), math.Ceil(lowSoFar.runs-1e-9), math.Ceil(lowLater.runs-1e-9), math.Ceil(wantLater.runs-1e-9))
			hb.RealRuns = int(math.Max(0, runs))
		}
		// In the runtime's units: it sums nano-hours and nanodollars.
		if b.GPUHours > 0 {
			hb.GPUHours = nano(lowLater.gpuHours)
		}
		if b.USD > 0 {
			hb.USD = nano(lowLater.usd)
		}
		g.ph.HoldBack = hb
	}
}

func nano(x float64) float64 { return math.Max(0, math.Round(x*1e9)/1e9) }
