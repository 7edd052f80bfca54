package compiler

import (
	"fmt"
	"math"
	"strconv"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
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

// phaseSpend is a phase's figures: low, its low ones; want, the real runs
// the phases before it hold back for it (its high count; a loop that
// spends the budget: its low, since it spends whatever the others leave);
// need, the GPU-hours and dollars they hold back for it. A phase whose
// counts the plan fixes needs what the runtime may hold for it at its
// high figures: each real run at the high count, its high hours and their
// price, each LLM call it may make (every re-ask) at every attempt its
// plugin may make at the role's high tokens (what the runtime holds for a
// call), each update. A loop (RL, evolution) needs its low figures: a cap
// shrinks a loop, while it is what the plan promises of the other phases.
func phaseSpend(v *plan.Variant, ph *plan.Phase) (low, want, need spend) {
	low, high := callsSpend(v, ph.Calls)
	loop := ph.Kind == plan.PhaseRL || ph.Kind == plan.PhaseEvolution
	untilBudget := false
	if ph.RL != nil {
		for _, l := range v.Loops {
			if l.Name != ph.RL.Loop {
				continue
			}
			untilBudget = l.UntilBudget
			if u := l.Update; u != nil {
				low = low.add(spend{0, mul(u.Updates.Low, u.GPUHours), mul(u.Updates.Low, u.USD)})
				high = high.add(spend{0, mul(u.Updates.High, u.GPUHours), mul(u.Updates.High, u.USD)})
			}
		}
	}
	if ct := ph.CriticTraining; ct != nil {
		l, h := criticTrainingSpend(ct)
		low, high = low.add(l), high.add(h)
	}
	if ev := ph.Evolution; ev != nil && ev.Continual != nil {
		l, h := criticTrainingSpend(ev.Continual.Training)
		low, high = low.add(l), high.add(h)
	}
	want, need = high, high
	if untilBudget {
		want = low
	}
	if loop {
		need = low
	}
	return low, want, need
}

// callsSpend is the figures of calls, low and high, as phaseSpend counts
// them.
func callsSpend(v *plan.Variant, calls plan.Calls) (low, high spend) {
	envs := map[string]*plan.Environment{}
	for _, e := range v.Envs {
		envs[e.Name] = e
	}
	roles := map[string]*plan.Role{}
	for _, r := range v.Roles {
		roles[r.Name] = r
	}
	for name, c := range calls.RealRuns {
		gh, usd := 0.0, 0.0
		if e := envs[name]; e != nil {
			gh = e.GPUHours.High
			usd = mul(gh, v.Prices[e.GPU])
		}
		low = low.add(spend{c.Low, mul(c.Low, gh), mul(c.Low, usd)})
		high = high.add(spend{c.High, mul(c.High, gh), mul(c.High, usd)})
	}
	for name, c := range calls.LLM {
		r := roles[name]
		if r == nil {
			continue
		}
		// A call is settled at what it cost, so its low figure is its
		// dollars at the low token figures (the estimate's low).
		low.usd += mul(c.Low, (r.TokensIn.Low*r.PriceIn+r.TokensOut.Low*r.PriceOut)/1e6)
		n := c.High
		if a := r.Answer; a != nil && a.Reasks > 0 {
			n *= float64(1 + a.Reasks) // every answer asked again as often as the role allows
		}
		// Whole calls, each held in nanodollars as the runtime holds it.
		high.usd += mul(math.Ceil(n-1e-9), nano(callHold(r)))
	}
	return low, high
}

// callHold is the most one plugin call of role r can cost, which the
// runtime holds against the dollar cap before sending it: each attempt
// its plugin may make, at the role's high tokens in and out (whole
// tokens) at its prices.
func callHold(r *plan.Role) float64 {
	a := float64(max(r.Attempts, 1))
	return (a*tokenBound(r.TokensIn.High)*r.PriceIn + a*tokenBound(r.TokensOut.High)*r.PriceOut) / 1e6
}

// tokenBound is a high token figure in whole tokens, an unbounded one
// kept where the runtime keeps it.
func tokenBound(high float64) float64 {
	if !(high < math.MaxInt32) { // also +Inf and NaN
		return math.MaxInt32
	}
	return math.Ceil(max(high, 0))
}

// holdBack decides what each phase of a variant leaves unspent under each
// cap for the phases after it (plan.Phase.HoldBack), and returns the caps
// that cannot pay for what it holds back.
//
// GPU-hours and dollars: what the later phases need (phaseSpend), so a
// phase the plan promises (an evaluation, a calibration round) gets every
// real run and call it may make, every attempt at its high tokens
// included, whatever the phases before it spend. When a cap cannot pay
// for that beside the low figures of the phases up to this one, the
// hold-back is what it can pay for, never less than the later phases'
// low figures, and the cap is returned as a shortfall: the spec is
// refused (E_BUDGET_FIT), since a later phase could be cut short.
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
func holdBack(v *plan.Variant, repairs map[string]float64) []shortfall {
	groups := spendGroups(v, repairs)
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
		var lowLater, wantLater, needLater spend
		for _, h := range groups[i+1:] {
			lowLater, wantLater, needLater = lowLater.add(h.low), wantLater.add(h.want), needLater.add(h.need)
		}
		hb := &plan.HoldBack{}
		if b.RealRuns > 0 {
			// Whole runs: a later phase's low of 2.5 runs needs 3.
			runs := floor(float64(b.RealRuns), math.Ceil(lowSoFar.runs-1e-9), math.Ceil(lowLater.runs-1e-9), math.Ceil(wantLater.runs-1e-9))
			hb.RealRuns = int(math.Max(0, runs))
		}
		// In the runtime's units: it sums nano-hours and nanodollars.
		if b.GPUHours > 0 {
			hb.GPUHours = nano(floor(b.GPUHours, lowSoFar.gpuHours, lowLater.gpuHours, needLater.gpuHours))
		}
		if b.USD > 0 {
			hb.USD = nano(floor(b.USD, lowSoFar.usd, lowLater.usd, needLater.usd))
		}
		g.ph.HoldBack = hb
	}
	var out []shortfall
	if b.GPUHours > 0 {
		out = append(out, shortOf(groups, "gpu_hours", b.GPUHours, func(s spend) float64 { return s.gpuHours })...)
	}
	if b.USD > 0 {
		out = append(out, shortOf(groups, "usd", b.USD, func(s spend) float64 { return s.usd })...)
	}
	return out
}

// spendGroup is a phase with the calibration rounds that run inside it,
// and their figures (phaseSpend).
type spendGroup struct {
	ph              *plan.Phase
	low, want, need spend
}

// runSpend is the GPU-hours and dollars of calls' real runs at their
// high count and hours, as phaseSpend counts them.
func runSpend(v *plan.Variant, calls plan.Calls) (gpuHours, usd float64) {
	for name, c := range calls.RealRuns {
		for _, e := range v.Envs {
			if e.Name == name {
				gh := e.GPUHours.High
				gpuHours += mul(c.High, gh)
				usd += mul(c.High, mul(gh, v.Prices[e.GPU]))
			}
		}
	}
	return gpuHours, usd
}

// spendGroups are a variant's phases as the caps see them: each phase
// with its figures, an RL phase's with those of the calibration rounds
// that run inside it, the runs repairs may add (repairs, by phase or
// round name) left out of what is held back.
func spendGroups(v *plan.Variant, repairs map[string]float64) []*spendGroup {
	var groups []*spendGroup
	for _, ph := range v.Phases {
		low, want, need := phaseSpend(v, ph)
		loop := ph.Kind == plan.PhaseRL || ph.Kind == plan.PhaseEvolution
		want, need = withoutRepairs(v, ph.Calls, repairs[ph.Name], loop, low, want, need)
		g := &spendGroup{ph: ph, low: low, want: want, need: need}
		if ph.RL != nil && ph.RL.Calibration != nil {
			for _, round := range ph.RL.Calibration.Rounds {
				// A round's counts are fixed: it needs its high figures.
				l, h := callsSpend(v, round.Calls)
				w, n := withoutRepairs(v, round.Calls, repairs[round.Name], false, l, h, h)
				g.low, g.want, g.need = g.low.add(l), g.want.add(w), g.need.add(n)
			}
		}
		groups = append(groups, g)
	}
	return groups
}

// withoutRepairs is want and need without the extra real runs repairs
// may add to calls: the repair runs' share of the GPU-hours and dollars
// of runs goes too (a loop needs its low alone): a repair is not held
// back for.
func withoutRepairs(v *plan.Variant, calls plan.Calls, extra float64, loop bool, low, want, need spend) (spend, spend) {
	if extra <= 0 || want.runs <= 0 {
		return want, need
	}
	keep := math.Max(low.runs, want.runs-extra) / want.runs
	if !loop {
		gh, usd := runSpend(v, calls)
		need.gpuHours -= (1 - keep) * gh
		need.usd -= (1 - keep) * usd
	}
	want.runs = math.Max(low.runs, want.runs-extra)
	return want, need
}

// shortfall is a cap (budget.gpu_hours or budget.usd, of value) that
// cannot fund what a phase needs: with the phases before it at their low
// figures (before) and those after it held what they need (after), the
// phase has less room than its need, and the cap is short by short.
type shortfall struct {
	cap                        string
	value                      float64
	phase                      string
	need, before, after, short float64
}

// shortOf is the shortfall of cap c (f picks its figure), if any. The
// check is the hold-back's: before phase k starts, the phases after it
// need after(k), and the phases up to it keep their low figures. The last
// k where that does not fit is where the hold-back gives way, and the
// phase after it is the one a run could cut short.
func shortOf(groups []*spendGroup, name string, c float64, f func(spend) float64) []shortfall {
	last := -1
	var lowSoFar float64
	for k, g := range groups {
		lowSoFar += f(g.low)
		var after float64
		for _, h := range groups[k+1:] {
			after += f(h.need)
		}
		if nano(lowSoFar+after) > nano(c) {
			last = k
		}
	}
	if last < 0 || last+1 >= len(groups) {
		// Short even at every phase's low figures: the estimate's cap
		// check says so (E_CAP_EXCEEDED, or W_CAP_AT_RISK where a real
		// run's high hours are what break it).
		return nil
	}
	var before, after float64
	for _, g := range groups[:last+1] {
		before += f(g.low)
	}
	for _, g := range groups[last+2:] {
		after += f(g.need)
	}
	g := groups[last+1]
	need := f(g.need)
	return []shortfall{{cap: name, value: c, phase: g.ph.Name, need: need, before: before, after: after, short: before + need + after - c}}
}

// refuse reports each shortfall at its cap (E_BUDGET_FIT), naming the
// variant of a sweep.
func (lv *lowering) refuse(sfs []shortfall, variant string) {
	for _, sf := range sfs {
		f, up := hoursOf, func(x float64) string { return hoursOf(ceilTo(x, 0)) }
		what := "each real run at its high count and hours, each update"
		at := lv.s.Budget.GPUHours.Range
		if sf.cap == "usd" {
			f, up = usd, func(x float64) string { return usd(ceilTo(x, 0.01)) }
			what = "every attempt of each LLM call at its role's high tokens, each real run at its high count and hours, each update"
			at = lv.s.Budget.USD.Range
		}
		where := ""
		if variant != "" {
			where = " (variant " + variant + ")"
		}
		lv.c.add(diag.Errorf(CodeBudgetFit, at, "budget.%s%s = %s cannot fund phase %s: it may spend %s at its high figures (%s), the phases before it need %s at their low figures and those after it %s held back; %s short, so the run could cut %s short",
			sf.cap, where, f(sf.value), sf.phase, f(sf.need), what, f(sf.before), f(sf.after), f(sf.short), sf.phase).
			WithDetail("raise budget.%s to at least %s, or lower what %s may spend: its calls, their roles' tokens (high figures) or their plugin's retries, its real runs", sf.cap, up(sf.value+sf.short), sf.phase))
	}
}

// hoursOf prints GPU-hours to four significant digits.
func hoursOf(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) + " GPU-hours" }

// ceilTo rounds x up to a multiple of step, or (step 0, or x below it) to
// four significant digits, so that a figure to raise a cap to is never
// printed below what is needed.
func ceilTo(x, step float64) float64 {
	if x <= 0 || math.IsInf(x, 0) {
		return x
	}
	if step <= 0 || x < step {
		step = math.Pow(10, math.Floor(math.Log10(x))-3)
	}
	return math.Ceil(x/step-1e-9) * step
}

// usd prints dollars as the estimate does: cents, or three significant
// digits below a cent.
func usd(x float64) string {
	if math.IsInf(x, 1) {
		return "unbounded dollars"
	}
	if a := math.Abs(x); a > 0 && a < 0.01 {
		return "$" + strconv.FormatFloat(x, 'g', 3, 64)
	}
	return fmt.Sprintf("$%.2f", x)
}

func nano(x float64) float64 { return math.Max(0, math.Round(x*1e9)/1e9) }
