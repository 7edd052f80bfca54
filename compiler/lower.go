package compiler

import (
	"math"
	"path/filepath"
	"sort"
	"strings"

	"assay/compiler/plan"
	"assay/lang/diag"
	"assay/lang/formula"
	"assay/lang/spec"
)

// lower builds the plan: one plan.Variant per variant, with its phases and
// the count of every plugin call (see the package plan's Phase).
func lower(c *compilation) {
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Name: planName(c.spec)}
	for _, v := range c.variants {
		lv := &lowering{c: c, s: v.spec, x: v.idx}
		out := lv.variant()
		out.Name, out.Overrides = v.name, nil
		if len(v.overrides) > 0 {
			out.Overrides = v.overrides
		}
		p.Variants = append(p.Variants, out)
	}
	if len(c.overrides) > 0 {
		p.Overrides = c.overrides
	}
	c.plan = p
}

func planName(s *spec.Spec) string {
	if s.Name.Set && s.Name.V != "" {
		return s.Name.V
	}
	if len(s.Files) > 0 {
		b := filepath.Base(s.Files[0])
		return strings.TrimSuffix(b, filepath.Ext(b))
	}
	return "experiment"
}

// Scenarios of the estimate's assumptions: a critic's low, expected and
// high share of candidates routed to real runs, crossed with a builder's
// low, expected and high share of builds that succeed. Scenario sc takes
// routed level sc/3 and build level sc%3. Every count is computed once per
// scenario; a plan.Count takes the minimum, the expected scenario and the
// maximum, so a bound holds at every corner of the assumptions' ranges.
const (
	scExpected = 4
	scHigh     = 8 // most routed, most builds succeed
	nScenarios = 9
)

type vec [nScenarios]float64

func (v vec) count() plan.Count {
	lo, hi := v[0], v[0]
	for _, x := range v[1:] {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return plan.Count{Low: lo, Expected: v[scExpected], High: hi}
}

// rawPhase is a phase's counts, per scenario.
type rawPhase struct {
	ph        *plan.Phase
	runs      map[string]*vec
	llm       map[string]*vec
	cand      vec
	steps     vec
	refreshes vec
	// untilBudget marks the phase of a loop that runs until the budget is
	// spent: its figures are bounded by its refresh count's range times the
	// range of a refresh's figures (see count).
	untilBudget bool
}

// count turns a phase figure into a Count. For an until_budget loop the
// runtime stops at the high step count and spends the budget, whatever the
// routed and build shares turn out to be, so a figure lies between the
// fewest refreshes times the least a refresh makes and the most refreshes
// times the most a refresh makes; the scenarios alone would not bound a mix
// of them (many steps because few candidates are routed, and many critic
// calls because every build succeeds).
func (r *rawPhase) count(v vec) plan.Count {
	c := v.count()
	if !r.untilBudget {
		return c
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for sc := range v {
		if r.refreshes[sc] > 0 {
			per := v[sc] / r.refreshes[sc]
			lo, hi = math.Min(lo, per), math.Max(hi, per)
		}
	}
	rc := r.refreshes.count()
	if math.IsInf(lo, 1) {
		return c
	}
	return plan.Count{Low: math.Min(c.Low, rc.Low*lo), Expected: c.Expected, High: math.Max(c.High, rc.High*hi)}
}

func (r *rawPhase) addRuns(env string, sc int, n float64) {
	if n == 0 {
		return
	}
	if r.runs[env] == nil {
		r.runs[env] = &vec{}
	}
	r.runs[env][sc] += n
}

func (r *rawPhase) addLLM(role string, sc int, n float64) {
	if n == 0 {
		return
	}
	if r.llm[role] == nil {
		r.llm[role] = &vec{}
	}
	r.llm[role][sc] += n
}

func (r *rawPhase) totalRuns(sc int) float64 {
	t := 0.0
	for _, v := range r.runs {
		t += v[sc]
	}
	return t
}

type lowering struct {
	c *compilation
	s *spec.Spec
	x *index
}

func (lv *lowering) variant() *plan.Variant {
	s := lv.s
	out := &plan.Variant{Seed: int64(s.Seed.V), Prices: map[string]float64{}}
	for _, p := range s.Plugins {
		out.Plugins = append(out.Plugins, &plan.Plugin{Name: p.Name, Kind: p.Kind.V, Source: p.Source.V, Version: p.Version.V, Config: p.Config.V})
	}
	if s.Prices != nil {
		for k, v := range s.Prices.GPU.V {
			out.Prices[k] = v
		}
	}
	for _, e := range s.Environments {
		out.Envs = append(out.Envs, lowerEnv(e))
	}
	for _, r := range s.Roles {
		pr := &plan.Role{Name: r.Name, Kind: r.Kind.V, Plugin: r.LLM.Name, Model: r.Model.V, Temperature: r.Temperature.V,
			Concurrency: r.Concurrency.V, Seconds: r.Seconds.V, Source: r.NameRange}
		if r.Tokens != nil {
			pr.TokensIn, pr.TokensOut = r.Tokens.In.V, r.Tokens.Out.V
		}
		if r.Price != nil {
			pr.PriceIn, pr.PriceOut = r.Price.In.V, r.Price.Out.V
		}
		out.Roles = append(out.Roles, pr)
	}
	for _, r := range s.Rewards {
		pr := &plan.Reward{Name: r.Name, GainFrom: r.Source.V, Predictor: r.Predictor.Name, Normalize: r.Normalize.V,
			Clip: r.Clip.V, Value: lv.planFormula(r.Value.V), RepeatPenalty: r.Repeat.V, Infeasible: lv.planFormula(r.Infeasible.V), Source: r.NameRange}
		if r.Diversity != nil {
			pr.DiversityBy, pr.DiversityWeight = r.Diversity.By.V, r.Diversity.Weight.V
		}
		out.Rewards = append(out.Rewards, pr)
	}
	for _, cr := range s.Critics {
		pc := &plan.Critic{Name: cr.Name, Role: cr.Role.Name, Votes: cr.Votes.V, Labels: cr.Labels.V,
			Aggregate: cr.Aggregate.V, Tie: tieRule(cr), Threshold: cr.Threshold.V, Routed: routed(cr).count(), Source: cr.NameRange}
		if cr.Route.Set {
			f := lv.planFormula(cr.Route.V)
			pc.Route = &f
		}
		out.Critics = append(out.Critics, pc)
	}
	if r := s.Records; r != nil {
		out.Records = &plan.Records{SeedRuns: r.SeedRuns.V, Select: r.Select.V}
	}
	if cal := s.Calibration; cal != nil {
		out.Calibration = &plan.Calibration{Loop: cal.Loop.Name, AfterSteps: append([]int(nil), cal.AfterSteps.V...), Budget: calibrationRuns(cal), Select: cal.Select.V}
	}
	if ev := s.Evaluation; ev != nil {
		out.Evaluation = &plan.Evaluation{Split: ev.Split.V, AvgAt: ev.AvgAt.V, BestAt: ev.BestAt.V}
	}
	if b := s.Budget; b != nil {
		out.Budget = plan.Budget{RealRuns: b.RealRuns.V, GPUHours: b.GPUHours.V, USD: b.USD.V, WallHours: b.WallHours.V, Source: map[string]diag.Range{}}
		for name, v := range map[string]struct {
			set bool
			r   diag.Range
		}{"real_runs": {b.RealRuns.Set, b.RealRuns.Range}, "gpu_hours": {b.GPUHours.Set, b.GPUHours.Range}, "usd": {b.USD.Set, b.USD.Range}, "wall_hours": {b.WallHours.Set, b.WallHours.Range}} {
			if v.set {
				out.Budget.Source[name] = v.r
			}
		}
	}
	if ex := s.Executor; ex != nil {
		out.Executor = plan.Executor{Kind: ex.Kind.V, Concurrency: ex.Concurrency.V, GPUs: ex.GPUs.V}
		if sl := ex.Slurm; sl != nil {
			m := map[string]any{}
			put := func(k string, set bool, v any) {
				if set {
					m[k] = v
				}
			}
			put("partition", sl.Partition.Set, sl.Partition.V)
			put("account", sl.Account.Set, sl.Account.V)
			put("qos", sl.QOS.Set, sl.QOS.V)
			put("time_limit", sl.TimeLimit.Set, sl.TimeLimit.V)
			put("cpus", sl.CPUs.Set, sl.CPUs.V)
			put("memory", sl.Memory.Set, sl.Memory.V)
			put("array", sl.Array.Set, sl.Array.V)
			out.Executor.Slurm = m
		}
	}
	out.Loops, out.Phases = lv.phases()
	out.Assumptions = lv.assumptions(out)
	return out
}

// assumptions lists what the estimate of a variant takes as given: the
// routed share of each critic that routes, the build-failure share of each
// builder a block calls, each role's tokens per call, each environment's
// hours per run and each GPU's price, with where the spec states them.
func (lv *lowering) assumptions(v *plan.Variant) []*plan.Assumption {
	s, x := lv.s, lv.x
	var out []*plan.Assumption
	add := func(name string, c plan.Count, affects string, at ...diag.Range) {
		a := &plan.Assumption{Name: name, Value: c, Affects: affects}
		for _, r := range at {
			if r.Valid() {
				a.Source = r
				break
			}
		}
		out = append(out, a)
	}
	for _, l := range v.Loops {
		if !l.Routes {
			continue
		}
		if cr := x.critics[l.Critic]; cr != nil {
			add("critic."+cr.Name+".routed_share", routed(cr).count(), "real runs and steps of loop "+l.Name, cr.RoutedRange.Range, cr.ExpectedRouted.Range)
		}
	}
	builders := map[string]bool{}
	for _, l := range v.Loops {
		builders[l.Builder] = true
	}
	for _, ph := range v.Phases {
		builders[ph.Builder] = true
	}
	for _, r := range s.Roles {
		if builders[r.Name] {
			f := lv.built(spec.Ref{Kind: "role", Name: r.Name, Set: true}).count()
			add("role."+r.Name+".build_failures", plan.Count{Low: 1 - f.High, Expected: 1 - f.Expected, High: 1 - f.Low},
				"real runs, and calls after a build, of the blocks that build with it", r.BuildFailureRange.Range, r.BuildFailures.Range)
		}
		if r.Tokens != nil {
			add("role."+r.Name+".tokens_in", plan.Exact(r.Tokens.In.V), "LLM tokens and dollars of the role, and the dollars each call holds", r.Tokens.In.Range, r.Tokens.Range)
			add("role."+r.Name+".tokens_out", plan.Exact(r.Tokens.Out.V), "LLM tokens and dollars of the role, and the dollars each call holds", r.Tokens.Out.Range, r.Tokens.Range)
		}
	}
	for _, e := range v.Envs {
		if se := x.envs[e.Name]; se != nil && se.RunCost != nil {
			add("environment."+e.Name+".hours_per_run", plan.Exact(e.Hours), "GPU-hours, dollars and wall-clock hours of its real runs", se.RunCost.Hours.Range, se.RunCost.GPUHours.Range, se.RunCost.Range)
		}
	}
	used := map[string]bool{}
	for _, e := range v.Envs {
		used[e.GPU] = true
	}
	for _, g := range keys(v.Prices) {
		if !used[g] {
			continue // a price no run pays is no assumption of this estimate
		}
		var at diag.Range
		if s.Prices != nil {
			at = firstValid(s.Prices.GPU.Range, s.Prices.Preset.Range)
		}
		add("prices."+g+".usd_per_gpu_hour", plan.Exact(v.Prices[g]), "GPU dollars", at)
	}
	return out
}

func lowerEnv(e *spec.Environment) *plan.Environment {
	pe := &plan.Environment{Name: e.Name, Family: e.Family.V, Trainer: e.Trainer.Name, Benchmark: e.Benchmark.Name, Source: e.NameRange}
	if e.Metric != nil {
		pe.Metric, pe.Direction = e.Metric.Name.V, e.Metric.Direction.V
	}
	if rc := e.RunCost; rc != nil {
		pe.GPU, pe.GPUs = rc.GPU.V, rc.GPUs.V
		if rc.GPUHours.Set {
			pe.GPUHours = rc.GPUHours.V
			pe.Hours = rc.GPUHours.V / float64(max(rc.GPUs.V, 1))
		} else {
			pe.Hours = rc.Hours.V
			pe.GPUHours = float64(rc.GPUs.V) * rc.Hours.V
		}
	}
	for _, t := range envTasks(e, "") {
		pt := &plan.Task{Name: t.Name, Split: t.Split.V}
		if t.Baseline.Set {
			pt.Baseline = ptr(t.Baseline.V)
		} else if e.Baseline.Set {
			pt.Baseline = ptr(e.Baseline.V)
		}
		if t.Scale.Set {
			pt.Scale = ptr(t.Scale.V)
		} else if e.Scale.Set {
			pt.Scale = ptr(e.Scale.V)
		}
		pe.Tasks = append(pe.Tasks, pt)
	}
	return pe
}

func ptr[T any](v T) *T { return &v }

// levels spreads three levels (low, expected, high) over the scenarios of
// one assumption: routed (sc/3) or built (sc%3).
func levels(lo, e, hi float64, routedAxis bool) vec {
	var v vec
	l := [3]float64{lo, e, hi}
	for sc := range v {
		if routedAxis {
			v[sc] = l[sc/3]
		} else {
			v[sc] = l[sc%3]
		}
	}
	return v
}

// routed returns a critic's routed fraction per scenario: expected
// expected_routed, range routed_range (default [expected_routed, 1]).
func routed(cr *spec.Critic) vec {
	if !cr.ExpectedRouted.Set {
		return vec{}
	}
	e := cr.ExpectedRouted.V
	lo, hi := e, 1.0
	if cr.RoutedRange.Set && len(cr.RoutedRange.V) == 2 {
		lo, hi = cr.RoutedRange.V[0], cr.RoutedRange.V[1]
	}
	return levels(lo, e, hi, true)
}

// built returns the share of builds that succeed per scenario for the
// builder a block binds: 1 without a builder; else 1 - build_failures,
// over 1 - build_failure_range.
func (lv *lowering) built(builder spec.Ref) vec {
	r := lv.x.roles[builder.Name]
	if !builder.Set || r == nil {
		return levels(1, 1, 1, false)
	}
	e := r.BuildFailures.V
	lo, hi := e, e
	if rr := r.BuildFailureRange; rr.Set && len(rr.V) == 2 {
		lo, hi = rr.V[0], rr.V[1]
	}
	return levels(1-hi, 1-e, 1-lo, false)
}

// judge is the critic that judges a loop's candidates: its screen, or the
// critic that labels its critic-sourced reward; nil when none does.
func (lv *lowering) judge(l *spec.Loop) *spec.Critic {
	if l.Screen.Set {
		return lv.x.critics[l.Screen.Name]
	}
	if rw := lv.x.rewards[l.Reward.Name]; l.Kind.V == "rl" && rw != nil && rw.Source.V == "critic" && rw.Predictor.Set {
		return lv.x.critics[rw.Predictor.Name]
	}
	return nil
}

// critRoutes reports whether a critic can send a candidate to a real run:
// it has a route formula, or its tie rule routes ties.
func critRoutes(cr *spec.Critic) bool {
	return cr != nil && (cr.Route.Set || tieRule(cr) == "route")
}

// tieRule is a critic's tie rule, defaulted as Defaults documents.
func tieRule(cr *spec.Critic) string {
	switch {
	case cr.Tie.Set:
		return cr.Tie.V
	case cr.Route.Set:
		return "route"
	}
	return "lose"
}

// maxPerRefresh is the most one refresh adds to a figure, over scenarios.
func (r *rawPhase) maxPerRefresh(v vec) float64 {
	hi := 0.0
	for sc := range v {
		if r.refreshes[sc] > 0 {
			hi = math.Max(hi, v[sc]/r.refreshes[sc])
		}
	}
	return hi
}

// othersLow is the fewest real runs every phase but r makes.
func othersLow(raws []*rawPhase, r *rawPhase) float64 {
	t := 0.0
	for _, o := range raws {
		if o == r {
			continue
		}
		for _, v := range o.runs {
			t += o.count(*v).Low
		}
	}
	return t
}

// verified is the real runs of one island-round: verifications_per_round,
// or fewer when fewer ideas build (a share ok of them).
func verified(l *spec.Loop, ok float64) float64 {
	return math.Min(float64(l.Verifications.V), float64(l.Ideas.V)*ok)
}

// planFormula carries a checked formula into the plan: its text and the
// tree the formulas pass parsed and checked. A formula that pass did not
// check is a compiler bug.
func (lv *lowering) planFormula(src string) plan.Formula {
	e := lv.c.checked[src]
	if e == nil {
		panic("compiler: lowering a formula the formulas pass did not check: " + src)
	}
	return plan.Formula{Source: src, Tree: planNode(e.Tree())}
}

func planNode(n *formula.Node) *plan.Node {
	if n == nil {
		return nil
	}
	out := &plan.Node{Op: n.Op, Num: n.Num, Name: n.Name, Start: n.Start, End: n.End}
	for _, a := range n.Args {
		out.Args = append(out.Args, planNode(a))
	}
	return out
}

// splitWeights returns, per environment in order, its task count of split.
func (lv *lowering) splitWeights(split string) ([]string, []int) {
	var names []string
	var w []int
	for _, e := range lv.s.Environments {
		names = append(names, e.Name)
		w = append(w, envTaskCount(e, split))
	}
	return names, w
}

// spread splits total over weights by largest remainder, ties going to the
// earlier entry.
func spread(total int, weights []int) []int {
	out := make([]int, len(weights))
	sum := 0
	for _, w := range weights {
		sum += w
	}
	if sum == 0 || total <= 0 {
		return out
	}
	type rem struct {
		i int
		r int64
	}
	rems := make([]rem, len(weights))
	given := 0
	for i, w := range weights {
		q := total * w
		out[i] = q / sum
		given += out[i]
		rems[i] = rem{i, int64(q % sum)}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; k < total-given; k++ {
		out[rems[k].i]++
	}
	return out
}

// loopPlan is what a loop contributes, per scenario.
type loopPlan struct {
	l          *spec.Loop
	steps      vec
	runsPerCan vec // real runs per candidate
	perRefresh float64
}

// phases computes the loops and phases of a variant.
func (lv *lowering) phases() ([]*plan.Loop, []*plan.Phase) {
	s, x := lv.s, lv.x
	var raws []*rawPhase
	newPhase := func(name, kind, loop string, src diag.Range) *rawPhase {
		r := &rawPhase{ph: &plan.Phase{Name: name, Kind: kind, Loop: loop, Source: src}, runs: map[string]*vec{}, llm: map[string]*vec{}}
		raws = append(raws, r)
		return r
	}
	// allScen adds the same amount in every scenario.
	allScen := func(f func(sc int)) {
		for sc := 0; sc < nScenarios; sc++ {
			f(sc)
		}
	}
	// perRun counts a proposal and its build per real run of a seed or
	// evaluation phase, on the roles the phase is bound to.
	perRun := func(r *rawPhase, sc int, runs float64, proposer, builder spec.Ref) {
		r.addLLM(proposer.Name, sc, runs)
		if builder.Set {
			r.addLLM(builder.Name, sc, runs)
		}
	}

	// Baselines: one real run of the unedited reference configuration per
	// task whose baseline is neither declared nor supplied by a benchmark.
	// They come first (every gain is measured against them) and out of the
	// real-run budget first. No proposal, so no LLM call.
	bts := baselineTasks(s, x)
	if len(bts) > 0 {
		r := newPhase(plan.PhaseBaselines, plan.PhaseBaselines, "", bts[0].env.NameRange)
		for _, bt := range bts {
			r.ph.Tasks = append(r.ph.Tasks, plan.TaskRef{Env: bt.env.Name, Task: bt.task.Name})
			allScen(func(sc int) { r.addRuns(bt.env.Name, sc, 1) })
		}
	}

	// Seed records.
	seed := seedRuns(s)
	if s.Records != nil {
		r := newPhase(plan.PhaseSeedRecords, plan.PhaseSeedRecords, "", s.Records.Range)
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
		allScen(func(sc int) {
			lv.spreadRuns(r, sc, float64(seed)*ok[sc], "train")
			perRun(r, sc, float64(seed), s.Records.Proposer, s.Records.Builder)
			r.cand[sc] = float64(seed)
		})
	}

	// Fixed real runs outside until_budget loops, per scenario: baselines,
	// seed, evaluation, evolution and fixed-step RL loops.
	eval := evaluationRuns(s)
	var fixed vec
	seedOK, evalOK := lv.built(spec.Ref{}), lv.built(spec.Ref{})
	if s.Records != nil {
		seedOK = lv.built(s.Records.Builder)
	}
	if s.Evaluation != nil {
		evalOK = lv.built(s.Evaluation.Builder)
	}
	allScen(func(sc int) { fixed[sc] = float64(len(bts)) + float64(seed)*seedOK[sc] + float64(eval)*evalOK[sc] })

	lps := map[string]*loopPlan{}
	var budgetLoop *loopPlan
	for _, l := range s.Loops {
		lp := &loopPlan{l: l}
		lps[l.Name] = lp
		switch l.Kind.V {
		case "rl":
			lp.perRefresh = float64(l.StatesPerStep.V * l.ProposalsPerState.V)
			rw := x.rewards[l.Reward.Name]
			var frac vec
			if l.Screen.Set {
				frac = routed(x.critics[l.Screen.Name])
			}
			ok := lv.built(l.Builder)
			allScen(func(sc int) {
				switch {
				case rw.Source.V == "real" && !l.Screen.Set:
					lp.runsPerCan[sc] = ok[sc]
				case l.Screen.Set && rw.Source.V != "predicted" && critRoutes(x.critics[l.Screen.Name]):
					lp.runsPerCan[sc] = ok[sc] * frac[sc]
				}
			})
			if l.UntilBudget.V {
				budgetLoop = lp
				continue
			}
			allScen(func(sc int) {
				lp.steps[sc] = float64(l.Steps.V)
				fixed[sc] += lp.runs(lp.steps[sc], sc)
			})
		case "evolution":
			// An evolution loop's steps are its rounds.
			allScen(func(sc int) { lp.steps[sc] = float64(l.Rounds.V) })
			tasks := countSplit(s, l.Split.V)
			ok := lv.built(l.Builder)
			allScen(func(sc int) {
				fixed[sc] += float64(tasks) * float64(l.Islands.V) * float64(l.Rounds.V) * verified(l, ok[sc])
			})
		}
	}
	calRuns := calibrationRuns(s.Calibration)
	calOf := func(loop string, steps float64) float64 {
		if s.Calibration == nil || s.Calibration.Loop.Name != loop {
			return 0
		}
		t := 0
		for i, st := range s.Calibration.AfterSteps.V {
			if float64(st) < steps {
				t += calRuns[i]
			}
		}
		return float64(t)
	}
	// Calibration of fixed-step loops is fixed too.
	for _, lp := range lps {
		if lp != budgetLoop && lp.l.Kind.V == "rl" {
			allScen(func(sc int) { fixed[sc] += calOf(lp.l.Name, lp.steps[sc]) })
		}
	}
	if bl := budgetLoop; bl != nil {
		cap := float64(s.Budget.RealRuns.V)
		for sc := 0; sc < nScenarios; sc++ {
			bl.steps[sc] = solveSteps(bl, sc, cap-fixed[sc], func(st float64) float64 { return calOf(bl.l.Name, st) })
		}
		if math.IsInf(bl.steps.count().High, 1) {
			lv.c.add(diag.Errorf(CodeUntilBudget, bl.l.UntilBudget.Range, "nothing bounds the steps of loop %q: at the low end of its assumptions a step makes no real run, so the budget is never spent", bl.l.Name).
				WithDetail("give steps instead, or narrow the assumptions: a routed_range and a build_failure_range whose worst case still makes real runs"))
		} else if bl.steps[scExpected] < 1 || bl.steps.count().Low < 1 {
			lv.c.add(diag.Errorf(CodeUntilBudget, bl.l.UntilBudget.Range, "budget.real_runs = %d buys no step of loop %q: fixed runs take %g and one step needs %g more",
				s.Budget.RealRuns.V, bl.l.Name, fixed[scHigh], bl.runs(1, scHigh)).
				WithDetail("raise budget.real_runs, or lower baseline (declare baselines), seed, calibration or evaluation runs"))
		}
	}

	var loops []*plan.Loop
	for _, l := range s.Loops {
		lp := lps[l.Name]
		pl := &plan.Loop{Name: l.Name, Kind: l.Kind.V, Algorithm: l.Algorithm.V, Steps: lp.steps.count(), UntilBudget: l.UntilBudget.V,
			StatesPerStep: l.StatesPerStep.V, ProposalsPerState: l.ProposalsPerState.V, RolloutEvery: l.RolloutEvery.V,
			ZeroVariance: l.ZeroVariance.V, Reward: l.Reward.Name, Screen: l.Screen.Name, LearningRate: l.LearningRate.V,
			Proposer: l.Proposer.Name, Builder: l.Builder.Name, Summarizer: l.Summarizer.Name,
			Islands: l.Islands.V, Rounds: l.Rounds.V, MigrationEvery: l.MigrationEvery.V, Ideas: l.Ideas.V,
			Verifications: l.Verifications.V, Select: l.Select.V, Split: l.Split.V, Source: l.NameRange}
		if a, ok := plan.Algorithms[l.Algorithm.V]; ok && l.Kind.V == "rl" {
			pl.ClipLow, pl.ClipHigh, pl.KLCoef, pl.TokenLevel, pl.Epochs = a.ClipLow, a.ClipHigh, a.KLCoef, a.TokenLevel, a.Epochs
		}
		if cr := lv.judge(l); cr != nil {
			pl.Critic = cr.Name
			pl.Routes = l.Kind.V == "rl" && l.Screen.Set && critRoutes(cr)
		}
		if rw := x.rewards[l.Reward.Name]; l.Kind.V == "rl" && rw != nil {
			pl.RewardSource = rw.Source.V
			if rw.Source.V == "predicted" {
				pl.Predictor = rw.Predictor.Name
			}
			var per vec
			allScen(func(sc int) { per[sc] = lp.perRefresh * lp.runsPerCan[sc] })
			c := per.count()
			pl.RunsPerRefresh = &c
		}
		loops = append(loops, pl)
		switch l.Kind.V {
		case "rl":
			lv.rlPhases(lp, newPhase, calRuns)
		case "evolution":
			r := newPhase(plan.PhaseEvolution+"."+l.Name, plan.PhaseEvolution, l.Name, l.NameRange)
			r.ph.Select = l.Select.V
			cr := lv.judge(l)
			ok := lv.built(l.Builder)
			allScen(func(sc int) {
				for _, e := range s.Environments {
					ir := float64(envTaskCount(e, l.Split.V)) * float64(l.Islands.V) * float64(l.Rounds.V)
					ideas := ir * float64(l.Ideas.V)
					r.addRuns(e.Name, sc, ir*verified(l, ok[sc]))
					r.cand[sc] += ideas
					r.addLLM(l.Proposer.Name, sc, ideas)
					if l.Builder.Set {
						r.addLLM(l.Builder.Name, sc, ideas)
					}
					if cr != nil {
						// Only ideas that build are summarized and judged.
						if l.Summarizer.Set {
							r.addLLM(l.Summarizer.Name, sc, ideas*ok[sc])
						}
						r.addLLM(cr.Role.Name, sc, ideas*ok[sc]*float64(cr.Votes.V))
					}
				}
			})
		}
	}
	if ev := s.Evaluation; ev != nil {
		r := newPhase(plan.PhaseEvaluation, plan.PhaseEvaluation, "", ev.Range)
		r.ph.Proposer, r.ph.Builder = ev.Proposer.Name, ev.Builder.Name
		k := max(ev.AvgAt.V, ev.BestAt.V)
		ok := lv.built(ev.Builder)
		allScen(func(sc int) {
			for _, e := range s.Environments {
				n := float64(envTaskCount(e, ev.Split.V)) * float64(k)
				r.addRuns(e.Name, sc, n*ok[sc])
				r.cand[sc] += n
			}
			perRun(r, sc, r.cand[sc], ev.Proposer, ev.Builder)
		})
	}

	var phases []*plan.Phase
	for _, r := range raws {
		ph := r.ph
		ph.Calls.Candidates = r.count(r.cand)
		if len(r.runs) > 0 {
			ph.Calls.RealRuns = map[string]plan.Count{}
			for k, v := range r.runs {
				c := r.count(*v)
				if r.untilBudget {
					// The loop spends its room; at the end it may stop one
					// refresh short, when the next one does not fit.
					c.Low = math.Max(c.Low, v.count().Low-r.maxPerRefresh(*v))
				}
				if r.untilBudget && s.Budget != nil && s.Budget.RealRuns.V > 0 {
					// The cap bounds the loop's runs whatever the shares:
					// what the other phases make at least is not the loop's.
					c.High = math.Max(c.Low, math.Min(c.High, float64(s.Budget.RealRuns.V)-othersLow(raws, r)))
				}
				ph.Calls.RealRuns[k] = c
			}
		}
		if len(r.llm) > 0 {
			ph.Calls.LLM = map[string]plan.Count{}
			for k, v := range r.llm {
				ph.Calls.LLM[k] = r.count(*v)
			}
		}
		if ph.Kind == plan.PhaseRL {
			ph.Steps, ph.Refreshes = r.steps.count(), r.refreshes.count()
		}
		phases = append(phases, ph)
	}
	return loops, phases
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

func (lv *lowering) rlPhases(lp *loopPlan, newPhase func(name, kind, loop string, src diag.Range) *rawPhase, calRuns []int) {
	s, x, l := lv.s, lv.x, lp.l
	r := newPhase(plan.PhaseRL+"."+l.Name, plan.PhaseRL, l.Name, l.NameRange)
	r.untilBudget = l.UntilBudget.V
	rw := x.rewards[l.Reward.Name]
	names, w := lv.splitWeights(l.Split.V)
	// One critic judges a candidate: the screen, or a labelling predictor.
	judge := lv.judge(l)
	frac := levels(1, 1, 1, true)
	if l.Screen.Set {
		frac = routed(x.critics[l.Screen.Name])
	}
	ok := lv.built(l.Builder)
	for sc := 0; sc < nScenarios; sc++ {
		st := lp.steps[sc]
		ref := lp.refreshes(st)
		cand := ref * lp.perRefresh
		r.steps[sc], r.refreshes[sc], r.cand[sc] = st, ref, cand
		r.addLLM(l.Proposer.Name, sc, cand)
		switch {
		case rw.Source.V == "predicted":
			r.addLLM(rw.Predictor.Name, sc, cand)
		case rw.Source.V == "real" && !l.Screen.Set:
			if l.Builder.Set {
				r.addLLM(l.Builder.Name, sc, cand)
			}
			lv.spreadFloat(r, sc, cand*ok[sc], names, w)
		default: // judged by a critic
			if l.Builder.Set {
				r.addLLM(l.Builder.Name, sc, cand)
			}
			// Only candidates that build are summarized, judged and routed.
			if l.Summarizer.Set {
				r.addLLM(l.Summarizer.Name, sc, cand*ok[sc])
			}
			if judge != nil {
				r.addLLM(judge.Role.Name, sc, cand*ok[sc]*float64(judge.Votes.V))
			}
			if l.Screen.Set && critRoutes(x.critics[l.Screen.Name]) {
				lv.spreadFloat(r, sc, cand*ok[sc]*frac[sc], names, w)
			}
		}
	}
	cal := s.Calibration
	if cal == nil || cal.Loop.Name != l.Name {
		return
	}
	for i, after := range cal.AfterSteps.V {
		cr := newPhase(plan.PhaseCalibration+"."+l.Name+"."+itoa(after), plan.PhaseCalibration, l.Name, cal.Range)
		cr.ph.AfterStep, cr.ph.Select = after, cal.Select.V
		ran := false
		for sc := 0; sc < nScenarios; sc++ {
			if float64(after) >= lp.steps[sc] {
				continue
			}
			ran = true
			n := calRuns[i]
			lv.spreadRuns(cr, sc, float64(n)*ok[sc], l.Split.V)
			if l.Builder.Set {
				cr.addLLM(l.Builder.Name, sc, float64(n))
			}
			cr.cand[sc] = float64(n)
		}
		if !ran {
			lv.c.add(diag.Warnf(CodeCalibrationSkips, cal.AfterSteps.Range, "calibration after step %d never runs: loop %q stops after %g steps", after, l.Name, lp.steps.count().High))
		}
	}
}

// spreadRuns spreads real runs over the environments by their tasks of
// split: whole runs by largest remainder when the total is whole, else in
// proportion.
func (lv *lowering) spreadRuns(r *rawPhase, sc int, total float64, split string) {
	names, w := lv.splitWeights(split)
	if total == math.Trunc(total) {
		for i, n := range spread(int(total), w) {
			r.addRuns(names[i], sc, float64(n))
		}
		return
	}
	lv.spreadFloat(r, sc, total, names, w)
}

// spreadFloat spreads total over names in proportion to their weights w.
func (lv *lowering) spreadFloat(r *rawPhase, sc int, total float64, names []string, w []int) {
	tot := 0
	for _, n := range w {
		tot += n
	}
	if tot == 0 {
		return
	}
	for i, n := range w {
		r.addRuns(names[i], sc, total*float64(n)/float64(tot))
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}
