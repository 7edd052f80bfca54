package compiler

import (
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// loopPlan is what a loop contributes, per scenario.
type loopPlan struct {
	l          *spec.Loop
	steps      vec
	runsPerCan vec // real runs per candidate
	perRefresh float64
	// unbounded says why nothing bounds the steps of a loop that spends
	// the budget; its steps per scenario then stand in for the low and
	// expected figures only.
	unbounded string
	// sampled is the groups a refresh samples per group it plans: 1, plus
	// the refill of dynamic sampling (see resampleFactor).
	sampled vec
	// beforeBudget marks a loop with fixed steps that runs before the
	// loop that spends the budget.
	beforeBudget bool
}

// resampleFactor is how many groups a refresh of l samples per group it
// plans, when dynamic sampling refills dropped groups: none dropped (1) at
// the low corner, every group dropped in every one of its resample_rounds
// (1 + R) at the high corner, and 1 + d + d^2 + ... + d^R elsewhere, d
// being the expected share dropped. Every figure grows with both the
// routed and the built share, so the corners stay the least and the most.
func resampleFactor(l *spec.Loop) vec {
	var f vec
	r := 0
	if l.ZeroVariance.V == "drop" {
		r = l.ResampleRounds.V
	}
	d := l.ExpectedDropped.V
	e, p := 1.0, 1.0
	for i := 0; i < r; i++ {
		p *= d
		e += p
	}
	for sc := range f {
		f[sc] = e
	}
	f[0], f[scHigh] = 1, float64(1+r)
	return f
}

// unboundedSteps settles a loop that spends the budget when, at the low end
// of its assumptions, a step makes no real run, so the real-run budget
// alone never stops it. max_steps bounds it; else budget.usd does, when
// every refresh costs some LLM dollars at least; else nothing does, and the
// figures that grow with its steps are unbounded (W_UNBOUNDED). The
// scenarios without a bound take the most steps of the others, so the low
// and expected figures stay those of the bounded scenarios.
func (lv *lowering) unboundedSteps(bl *loopPlan) {
	l, s := bl.l, lv.s
	bound := math.Inf(1)
	if l.MaxSteps.Set {
		bound = float64(l.MaxSteps.V)
	} else if s.Budget != nil && s.Budget.USD.Set && s.Budget.USD.V > 0 {
		if per := lv.refreshUSDLow(bl); per > 0 {
			// Every call's dollars are held before it is made, so the
			// refreshes that complete cost at most the cap; one more
			// may start and stop part-way.
			bound = (math.Floor(s.Budget.USD.V/per) + 1) * float64(max(l.RolloutEvery.V, 1))
		}
	}
	if !math.IsInf(bound, 1) {
		for sc := range bl.steps {
			bl.steps[sc] = math.Min(bl.steps[sc], bound)
		}
		return
	}
	bl.unbounded = "loop " + l.Name + " runs until budget.real_runs is spent, and at the low end of its assumptions a step makes no real run; neither max_steps nor budget.usd stops it"
	lv.c.add(diag.Warnf(CodeUnbounded, l.UntilBudget.Range, "nothing bounds the steps, LLM calls and dollars of loop %q: at the low end of its assumptions a step makes no real run, so the real-run budget may never be spent", l.Name).
		WithDetail("set max_steps, or budget.usd, or narrow the assumptions (an expected_routed low and a build_failures high whose worst case still makes real runs)"))
	most := 0.0
	for _, st := range bl.steps {
		if !math.IsInf(st, 1) {
			most = math.Max(most, st)
		}
	}
	for sc, st := range bl.steps {
		if math.IsInf(st, 1) {
			bl.steps[sc] = most
		}
	}
}

// refreshUSDLow is the fewest LLM dollars one refresh of an RL loop costs,
// at the low end of every assumption: every candidate is proposed, and built
// or predicted, whatever the routed and build shares are.
func (lv *lowering) refreshUSDLow(lp *loopPlan) float64 {
	l, x := lp.l, lv.x
	call := func(name string) float64 {
		r := x.roles[name]
		if r == nil || r.Price == nil {
			return 0
		}
		return (lv.tokens(r, "in").Low*r.Price.In.V + lv.tokens(r, "out").Low*r.Price.Out.V) / 1e6
	}
	// Every candidate is built first; only one that builds is predicted,
	// so with a builder the prediction is not certain to be made.
	per := call(l.Proposer.Name)
	if l.Builder.Set {
		per += call(l.Builder.Name)
	} else if rw := x.rewards[l.Reward.Name]; rw != nil && rw.Source.V == "predicted" {
		per += call(rw.Predictor.Name)
	}
	return per * lp.perRefresh
}

// refreshes is ceil(steps / rollout_every).
func (lp *loopPlan) refreshes(steps float64) float64 {
	re := float64(max(lp.l.RolloutEvery.V, 1))
	return math.Ceil(steps / re)
}

// runs is the real runs of steps policy steps in scenario sc.
func (lp *loopPlan) runs(steps float64, sc int) float64 {
	return lp.refreshes(steps) * lp.perRefresh * lp.runsPerCan[sc]
}

// solveSteps finds the largest S whose real runs plus calibration runs fit in
// room, by bisection: both grow with S.
func solveSteps(lp *loopPlan, sc int, room float64, cal func(float64) float64) float64 {
	if room <= 0 {
		return 0
	}
	fits := func(st float64) bool { return lp.runs(st, sc)+cal(st) <= room+1e-9 }
	hi := 1.0
	for fits(hi) {
		hi *= 2
		if hi > 1e9 {
			return math.Inf(1) // no real runs per step: nothing bounds the steps
		}
	}
	lo := 0.0
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// rlPhases adds an RL loop's phase, with its calibration rounds.
func rlPhases(pl *phaseLowering, lp *loopPlan) {
	lv, x, l := pl.lv, pl.lv.x, lp.l
	r := pl.newPhase(plan.PhaseRL+"."+l.Name, plan.PhaseRL, l.NameRange)
	r.ph.RL = &plan.RLBody{Loop: l.Name}
	r.untilBudget = l.UntilBudget.V
	r.unbounded = lp.unbounded
	r.repairing(lv, l.Builder)
	names, w := lv.splitWeights(l.Split.V)
	// Each refresh's states, spread over the environments by their tasks:
	// the runtime draws each state's task within its environment, so the
	// real runs per environment are these, whichever tasks are drawn.
	perEnv := spread(l.StatesPerStep.V, w)
	r.ph.RL.States = map[string]int{}
	for k, n := range perEnv {
		if n > 0 {
			r.ph.RL.States[names[k]] = n
		}
	}
	rc := rlCounter{lv: lv, l: l, r: r, rw: x.rewards[l.Reward.Name], judge: lv.judge(l), names: names, perEnv: perEnv,
		frac: levels(1, 1, 1, true), ok: lv.built(l.Builder)}
	// One critic judges a candidate: the screen, or a labelling predictor.
	if l.Screen.Set {
		rc.frac = lv.screenRuns(l)
	}
	for sc := 0; sc < nScenarios; sc++ {
		rc.count(lp, sc)
	}
	pl.calibrationRounds(r.ph, lp, rc.ok)
}

// rlCounter counts the calls of one RL loop's phase.
type rlCounter struct {
	lv     *lowering
	l      *spec.Loop
	r      *rawPhase
	rw     *spec.Reward
	judge  *spec.Critic
	names  []string
	perEnv []int
	frac   vec
	ok     vec
}

// count counts the phase's calls in scenario sc.
func (rc *rlCounter) count(lp *loopPlan, sc int) {
	l, r, rw, ok := rc.l, rc.r, rc.rw, rc.ok
	G := float64(l.ProposalsPerState.V)
	st := lp.steps[sc]
	ref := lp.refreshes(st)
	cand := ref * lp.perRefresh * lp.sampled[sc]
	r.steps[sc], r.refreshes[sc], r.cand[sc] = st, ref, cand
	r.addLLM(l.Proposer.Name, sc, cand)
	// Every candidate is built first: the builder decides whether it
	// is feasible, and one that does not build gets the infeasible
	// reward without a prediction, a verdict or a run.
	if l.Builder.Set {
		r.addBuilds(l.Builder.Name, sc, cand, ok[sc], rc.lv.repairs(l.Repairs.V))
	}
	switch {
	case rw.Source.V == "predicted":
		r.addLLM(rw.Predictor.Name, sc, cand*ok[sc])
	case rw.Source.V == "real" && !l.Screen.Set:
		for k, n := range rc.perEnv {
			r.addRuns(rc.names[k], sc, ref*float64(n)*G*ok[sc])
		}
	default: // judged by a critic
		// Only candidates that build are summarized, judged and routed;
		// at the high, every candidate's run is repaired every time it
		// can be, and each repair summarized too.
		if l.Summarizer.Set {
			r.addLLM(l.Summarizer.Name, sc, cand*ok[sc]*rc.lv.repairHigh(l.Builder, sc))
		}
		if rc.judge != nil {
			r.addLLM(rc.judge.Role.Name, sc, cand*ok[sc]*float64(rc.judge.Votes.V))
		}
		if l.Screen.Set && critRoutes(rc.lv.x.critics[l.Screen.Name]) {
			for k, n := range rc.perEnv {
				r.addRuns(rc.names[k], sc, ref*float64(n)*G*ok[sc]*rc.frac[sc])
			}
		}
	}
}

// calibrationRounds adds to the body of RL phase rl the calibration and
// its rounds, when the calibration block names the loop; ok is the loop's
// share of builds that succeed.
func (pl *phaseLowering) calibrationRounds(rl *plan.Phase, lp *loopPlan, ok vec) {
	lv, l := pl.lv, lp.l
	cal := lv.s.Calibration
	if cal == nil || cal.Loop.Name != l.Name {
		return
	}
	rl.RL.Calibration, _ = calibrationPlan(lv.s, lv.x)
	for i, after := range cal.AfterSteps.V {
		round := &plan.CalibrationRound{Name: "calibration." + l.Name + "." + itoa(after), AfterStep: after, Runs: pl.calRuns[i], Source: cal.Range}
		cr := pl.newRound(rl, round)
		cr.repairing(lv, l.Builder)
		// The round's runs per environment, as its counts spread them: the
		// runtime picks the best-rated proposals of each environment up to
		// its share, so the per-environment counts hold whichever
		// environment's proposals rate best.
		names, w := lv.splitWeights(l.Split.V)
		round.Proposals = map[string]int{}
		for k, n := range spread(pl.calRuns[i], w) {
			if n > 0 {
				round.Proposals[names[k]] = n
			}
		}
		ran := false
		for sc := 0; sc < nScenarios; sc++ {
			if float64(after) >= lp.steps[sc] {
				continue
			}
			ran = true
			// The round runs the top-rated candidates that built in the
			// rollouts (no build again): a pick that did not build is
			// passed over for the next, so a round makes its whole budget
			// unless no candidate builds at all.
			n := float64(pl.calRuns[i])
			if ok[sc] == 0 {
				n = 0
			}
			lv.spreadRuns(cr, sc, n, l.Split.V)
			cr.cand[sc] = float64(pl.calRuns[i])
		}
		if !ran {
			lv.c.add(diag.Warnf(CodeCalibrationSkips, cal.AfterSteps.Range, "calibration after step %d never runs: loop %q stops after %g steps", after, l.Name, lp.steps.count().High))
		}
	}
}

// settleRL settles an RL loop's figures per scenario: the candidates a
// refresh makes and the real runs each makes; a loop with fixed steps adds
// its real runs to the fixed runs, and a loop that spends the budget waits
// for solveBudget.
func settleRL(pl *phaseLowering, lp *loopPlan) {
	lv, x, l := pl.lv, pl.lv.x, lp.l
	lp.perRefresh = float64(l.StatesPerStep.V * l.ProposalsPerState.V)
	lp.sampled = resampleFactor(l)
	rw := x.rewards[l.Reward.Name]
	var frac vec
	if l.Screen.Set {
		frac = lv.screenRuns(l)
	}
	ok := lv.built(l.Builder)
	forScen(func(sc int) {
		switch {
		case rw.Source.V == "real" && !l.Screen.Set:
			lp.runsPerCan[sc] = ok[sc]
		case l.Screen.Set && rw.Source.V != "predicted" && critRoutes(x.critics[l.Screen.Name]):
			lp.runsPerCan[sc] = ok[sc] * frac[sc]
		}
		lp.runsPerCan[sc] *= lp.sampled[sc] // refilled groups are judged like the rest
	})
	if l.UntilBudget.V {
		pl.budgetLoop = lp
		return
	}
	lp.beforeBudget = pl.budgetLoop == nil
	forScen(func(sc int) {
		lp.steps[sc] = float64(l.Steps.V)
		pl.fixed[sc] += lp.runs(lp.steps[sc], sc)
		if pl.budgetLoop == nil {
			pl.fixedRepairs[sc] += lp.runs(lp.steps[sc], sc) * (lv.repairHigh(l.Builder, sc) - 1)
		}
	})
}

// calOf is the real runs of the calibration rounds of loop that come
// before it has run steps steps.
func (pl *phaseLowering) calOf(loop string, steps float64) float64 {
	cal := pl.lv.s.Calibration
	if cal == nil || cal.Loop.Name != loop {
		return 0
	}
	t := 0
	for i, st := range cal.AfterSteps.V {
		if float64(st) < steps {
			t += pl.calRuns[i]
		}
	}
	return float64(t)
}

// calibrationFixed adds the calibration of fixed-step loops to the fixed
// runs: it is fixed too.
func (pl *phaseLowering) calibrationFixed() {
	for _, l := range pl.lv.s.Loops {
		lp := pl.loops[l.Name]
		if lp != pl.budgetLoop && l.Kind.V == "rl" {
			forScen(func(sc int) {
				pl.fixed[sc] += pl.calOf(l.Name, lp.steps[sc])
				if lp.beforeBudget {
					pl.fixedRepairs[sc] += pl.calOf(l.Name, lp.steps[sc]) * (pl.lv.repairHigh(l.Builder, sc) - 1)
				}
			})
		}
	}
}

// solveBudget gives the loop that spends the budget, if any, the most
// steps whose real runs and calibration fit in what the fixed runs leave
// of budget.real_runs, bounded by max_steps; a budget that buys no step
// is an error.
func (pl *phaseLowering) solveBudget() {
	bl, lv := pl.budgetLoop, pl.lv
	if bl == nil {
		return
	}
	s := lv.s
	room := float64(s.Budget.RealRuns.V)
	for sc := 0; sc < nScenarios; sc++ {
		bl.steps[sc] = solveSteps(bl, sc, room-pl.fixed[sc], func(st float64) float64 { return pl.calOf(bl.l.Name, st) })
	}
	if math.IsInf(bl.steps.count().High, 1) {
		lv.unboundedSteps(bl)
	}
	if ms := bl.l.MaxSteps; ms.Set {
		for sc := range bl.steps {
			bl.steps[sc] = math.Min(bl.steps[sc], float64(ms.V))
		}
	}
	if bl.steps[scExpected] < 1 || bl.steps.count().Low < 1 {
		lv.c.add(diag.Errorf(CodeUntilBudget, bl.l.UntilBudget.Range, "budget.real_runs = %d buys no step of loop %q: fixed runs take %g and one step needs %g more",
			s.Budget.RealRuns.V, bl.l.Name, pl.fixed[scHigh], bl.runs(1, scHigh)).
			WithDetail("raise budget.real_runs, or lower baseline (declare baselines), seed, calibration or evaluation runs"))
	}
	pl.repairSteps(bl)
}

// repairSteps lowers the loop that spends the budget's steps at scHigh to
// those its room buys when every run of a candidate, its own and the
// fixed phases', is repaired every time it can be (lower_repairs.go): the
// repairs spend the runs the loop's steps would. It comes after the
// budget's checks, which need no repair.
func (pl *phaseLowering) repairSteps(bl *loopPlan) {
	lv := pl.lv
	f := lv.repairHigh(bl.l.Builder, scHigh)
	if f == 1 && pl.fixedRepairs[scHigh] == 0 {
		return
	}
	rp := *bl
	rp.runsPerCan[scHigh] *= f
	room := float64(lv.s.Budget.RealRuns.V) - pl.fixed[scHigh] - pl.fixedRepairs[scHigh]
	st := solveSteps(&rp, scHigh, room, func(st float64) float64 { return pl.calOf(bl.l.Name, st) * f })
	bl.steps[scHigh] = math.Min(bl.steps[scHigh], st)
}

// rlLoopFields sets what only an RL loop has: its parent rule, policy
// update, algorithm constants, reward source and real runs per refresh.
func rlLoopFields(pl *phaseLowering, lp *loopPlan, out *plan.Loop) {
	l, x := lp.l, pl.lv.x
	out.RunSteps = runSteps(l, out.Steps)
	rw := x.rewards[l.Reward.Name]
	if rw != nil && rw.Source.V != "predicted" {
		out.NewParent = "never"
		if l.NewParent.Set {
			out.NewParent = l.NewParent.V
		}
	}
	if l.Update != nil {
		out.Update = pl.lv.policyUpdate(l, out.Steps)
	}
	if a, ok := plan.Algorithms[l.Algorithm.V]; ok {
		out.ClipLow, out.ClipHigh, out.KLCoef, out.TokenLevel, out.Epochs, out.WeightDecay = a.ClipLow, a.ClipHigh, a.KLCoef, a.TokenLevel, a.Epochs, a.WeightDecay
	}
	if u := l.Update; u != nil {
		// What the update block sets overrides the algorithm's value.
		setF := func(v spec.Val[float64], dst *float64) {
			if v.Set {
				*dst = v.V
			}
		}
		setF(u.ClipLow, &out.ClipLow)
		setF(u.ClipHigh, &out.ClipHigh)
		setF(u.KLCoef, &out.KLCoef)
		setF(u.WeightDecay, &out.WeightDecay)
		out.LoRARank = u.LoRARank.V
		if u.Epochs.Set {
			out.Epochs = u.Epochs.V
		}
	}
	if rw == nil {
		return
	}
	out.RewardSource = rw.Source.V
	if rw.Source.V == "predicted" {
		out.Predictor = rw.Predictor.Name
	}
	var per vec
	forScen(func(sc int) { per[sc] = lp.perRefresh * lp.runsPerCan[sc] })
	c := per.count()
	out.RunsPerRefresh = &c
}

// runSteps is the steps the runtime runs of an RL loop whose estimated
// step count is steps: a fixed loop's own; for a loop that spends the
// budget, the count's high, the bound its figures are estimated at, or 0
// when nothing bounds it (then the budget alone stops the loop).
func runSteps(l *spec.Loop, steps plan.Count) int {
	switch {
	case !l.UntilBudget.V:
		return l.Steps.V
	case steps.Bounded():
		return int(math.Floor(steps.High + 1e-9))
	}
	return 0
}

// resampleRounds is the plan's bound on dynamic sampling's extra rounds:
// only a loop that drops zero-variance groups refills them.
func resampleRounds(l *spec.Loop) int {
	if l.Kind.V != "rl" || l.ZeroVariance.V != "drop" {
		return 0
	}
	return l.ResampleRounds.V
}

// policyUpdate lowers a loop's update block: one update per step that has
// samples, so at most the loop's steps; a loop that drops zero-variance
// groups may end a step with none, so its low count is 0.
func (lv *lowering) policyUpdate(l *spec.Loop, steps plan.Count) *plan.PolicyUpdate {
	u := l.Update
	adapter := updateAdapter.of(u.Adapter, l.Name)
	gpuh := float64(u.GPUs.V) * u.Hours.V
	var price float64
	if lv.s.Prices != nil {
		price = lv.s.Prices.GPU.V[u.GPU.V]
	}
	n := steps
	if l.ZeroVariance.V == "drop" {
		n.Low = 0
	}
	return &plan.PolicyUpdate{Trainer: u.Trainer.Name, GPU: u.GPU.V, GPUs: u.GPUs.V, Hours: u.Hours.V,
		GPUHours: gpuh, USD: gpuh * price, TimeLimitSeconds: timeLimit(u.Hours.V), Adapter: adapter, Updates: n, Source: firstValid(u.Range, l.NameRange)}
}
