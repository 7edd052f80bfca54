package compiler

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib"
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
	ph   *plan.Phase
	runs map[string]*vec
	llm  map[string]*vec
	// llmHigh is, per role, what its calls can reach at most where that is
	// more than the scenarios give: builder repairs, which no assumption
	// prices (a build that succeeds may have needed them).
	llmHigh map[string]*vec
	// runsLo and runsHi bound a phase's real runs per environment where
	// they are wider than the scenarios (see addRunBounds).
	runsLo, runsHi map[string]*vec
	cand           vec
	steps          vec
	refreshes      vec
	// untilBudget marks the phase of a loop that runs until the budget is
	// spent: its figures are bounded by its refresh count's range times the
	// range of a refresh's figures (see count).
	untilBudget bool
	// unbounded, when set, says why nothing bounds the phase's figures
	// that grow with its steps (see count).
	unbounded string
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
	if r.unbounded != "" && r.maxPerRefresh(v) > 0 {
		return plan.Unbounded(c.Low, c.Expected, r.unbounded)
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

// addBuilds counts the builder calls of n candidate builds in scenario
// sc, where a share ok of the builds succeeds in the end and each build
// that fails gets up to repairs repairs: a build that fails for good made
// 1 + repairs calls, one that succeeds at least one and at most as many.
// The scenario counts the fewest; llmHigh the most.
func (r *rawPhase) addBuilds(role string, sc int, n, ok float64, repairs int) {
	r.addLLM(role, sc, n*(1+float64(repairs)*(1-ok)))
	if repairs == 0 || n == 0 {
		return
	}
	if r.llmHigh == nil {
		r.llmHigh = map[string]*vec{}
	}
	if r.llmHigh[role] == nil {
		r.llmHigh[role] = &vec{}
	}
	r.llmHigh[role][sc] += n * float64(1+repairs)
}

// addRunBounds records what a phase's real runs on env can reach at least
// and at most in scenario sc, where that is wider than the scenario's own
// figure (an evolution round's routed ideas vary from round to round).
func (r *rawPhase) addRunBounds(env string, sc int, lo, hi float64) {
	if r.runsLo == nil {
		r.runsLo, r.runsHi = map[string]*vec{}, map[string]*vec{}
	}
	if r.runsLo[env] == nil {
		r.runsLo[env], r.runsHi[env] = &vec{}, &vec{}
	}
	r.runsLo[env][sc] += lo
	r.runsHi[env][sc] += hi
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
		out.Envs = append(out.Envs, lv.env(e))
	}
	for _, r := range s.Roles {
		pr := &plan.Role{Name: r.Name, Kind: r.Kind.V, Plugin: r.LLM.Name, Model: r.Model.V, Temperature: r.Temperature.V,
			Concurrency: r.Concurrency.V, Seconds: lv.seconds(r).Expected, Attempts: callAttempts(s, r.LLM.Name), Source: r.NameRange}
		if r.Tokens != nil {
			pr.TokensIn, pr.TokensOut = lv.tokens(r, "in"), lv.tokens(r, "out")
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
			Aggregate: cr.Aggregate.V, Tie: tieRule(cr), Threshold: cr.Threshold.V, Routed: lv.routedShare(cr), Source: cr.NameRange}
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
		out.Evaluation = &plan.Evaluation{Split: ev.Split.V, AvgAt: ev.AvgAt.V, BestAt: ev.BestAt.V, States: ev.States.V,
			Normalize: ev.Normalize.V, Arms: evalArms(ev), Predictor: ev.Predictor.Name}
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
	holdBack(out)
	out.Assumptions = lv.assumptions(out)
	return out
}

// assumptions lists what the estimate of a variant takes as given: the
// routed share of each critic that routes, the build-failure share of each
// builder a block calls, each role's tokens and seconds per call, each
// environment's hours per run and each GPU's price, with where each comes
// from: the spec (a range), a preset, a compiler default, or a run whose
// measurements replace the spec's figure.
func (lv *lowering) assumptions(v *plan.Variant) []*plan.Assumption {
	s, x := lv.s, lv.x
	var out []*plan.Assumption
	add := func(name string, c plan.Count, affects string, at ...diag.Range) {
		a := &plan.Assumption{Name: name, Value: c, Affects: affects}
		if l, ok := lv.c.opts.Learned[name]; ok && l.Missing == "" {
			a.From = l.From
		} else if ok {
			a.Note = l.Missing
		}
		for _, r := range at {
			if r.Valid() {
				a.Source = r
				break
			}
		}
		if a.From == "" && !a.Source.Valid() {
			a.From = "default"
		}
		out = append(out, a)
	}
	for _, l := range v.Loops {
		if !l.Routes {
			continue
		}
		if cr := x.critics[l.Critic]; cr != nil {
			add("critic."+cr.Name+".routed_share", lv.routedShare(cr), "real runs, and steps of a loop that spends the budget: loop "+l.Name, cr.ExpectedRouted.Range)
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
			add("role."+r.Name+".build_failures", lv.failures(r), "real runs, and calls after a build, of the blocks that build with it", r.BuildFailures.Range)
		}
		if r.Tokens != nil {
			add("role."+r.Name+".tokens_in", lv.tokens(r, "in"), "LLM tokens and dollars of the role; the dollar cap holds each call at the high figure", r.Tokens.In.Range, r.Tokens.Range)
			add("role."+r.Name+".tokens_out", lv.tokens(r, "out"), "LLM tokens and dollars of the role; a call asks for at most the high figure", r.Tokens.Out.Range, r.Tokens.Range)
		}
		if r.Seconds.Set {
			add("role."+r.Name+".seconds", lv.seconds(r), "wall-clock hours", r.Seconds.Range)
		}
	}
	for _, l := range s.Loops {
		if r := resampleRounds(l); r > 0 {
			f := resampleFactor(l).count()
			add("loop."+l.Name+".dropped_share", plan.Count{Low: 0, Expected: l.ExpectedDropped.V, High: 1},
				fmt.Sprintf("proposals, their scoring and real runs of loop %s: groups sampled again in place of dropped ones (x%g to x%g)", l.Name, f.Expected, f.High), l.ExpectedDropped.Range)
		}
		if u := l.Update; u != nil && l.Kind.V == "rl" {
			add("loop."+l.Name+".update.hours", plan.Exact(u.Hours.V), "GPU-hours, dollars and wall-clock hours of the loop's policy updates", u.Hours.Range, u.Range)
		}
	}
	for _, e := range v.Envs {
		if se := x.envs[e.Name]; se != nil && se.RunCost != nil {
			add("environment."+e.Name+".hours_per_run", e.Hours, "GPU-hours, dollars and wall-clock hours of its real runs; the caps hold each run at the high figure", se.RunCost.Hours.Range, se.RunCost.GPUHours.Range, se.RunCost.Range)
		}
	}
	used := map[string]bool{}
	for _, e := range v.Envs {
		used[e.GPU] = true
	}
	for _, l := range v.Loops {
		if l.Update != nil {
			used[l.Update.GPU] = true
		}
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
		if pp := lv.pricePreset(g, v.Prices[g]); pp != "" {
			out[len(out)-1].From = "preset " + pp
		}
	}
	return out
}

// pricePreset is the price preset the spec names when it gives GPU g the
// price usd, i.e. when the price is the preset's.
func (lv *lowering) pricePreset(g string, usd float64) string {
	pr := lv.s.Prices
	if pr == nil || !pr.Preset.Set {
		return ""
	}
	if p, ok := stdlib.PricePreset(pr.Preset.V); ok && p.GPU.Set {
		if x, ok := p.GPU.V[g]; ok && x == usd {
			return pr.Preset.V
		}
	}
	return ""
}

// learned is the figure a run measured for assumption name, when the
// compilation was given one, else c.
func (lv *lowering) learned(name string, c plan.Count) plan.Count {
	if l, ok := lv.c.opts.Learned[name]; ok && l.Missing == "" {
		return l.Value
	}
	return c
}

func spreadCount(sp spec.Spread) plan.Count {
	return plan.Count{Low: sp.Low, Expected: sp.Expected, High: sp.High}
}

// tokens is a role's prompt ("in") or completion ("out") tokens per call.
func (lv *lowering) tokens(r *spec.Role, which string) plan.Count {
	if r.Tokens == nil {
		return plan.Count{}
	}
	v := r.Tokens.In
	if which == "out" {
		v = r.Tokens.Out
	}
	return lv.learned("role."+r.Name+".tokens_"+which, spreadCount(v.V))
}

// seconds is a role's latency per call.
func (lv *lowering) seconds(r *spec.Role) plan.Count {
	return lv.learned("role."+r.Name+".seconds", plan.Exact(r.Seconds.V))
}

// routedShare is a critic's share of candidates routed: one number e means
// [e, 1] (at worst every candidate is routed), as the docs say.
func (lv *lowering) routedShare(cr *spec.Critic) plan.Count {
	if cr == nil || !cr.ExpectedRouted.Set {
		return plan.Count{}
	}
	c := spreadCount(cr.ExpectedRouted.V)
	if !cr.ExpectedRouted.V.Ranged {
		c.High = 1
	}
	return lv.learned("critic."+cr.Name+".routed_share", c)
}

// failures is a builder role's share of builds that fail (default 0).
func (lv *lowering) failures(r *spec.Role) plan.Count {
	return lv.learned("role."+r.Name+".build_failures", spreadCount(r.BuildFailures.V))
}

func (lv *lowering) env(e *spec.Environment) *plan.Environment {
	pe := &plan.Environment{Name: e.Name, Family: e.Family.V, Trainer: e.Trainer.Name, Benchmark: e.Benchmark.Name, Source: e.NameRange}
	if e.Metric != nil {
		pe.Metric, pe.Direction = e.Metric.Name.V, e.Metric.Direction.V
	}
	if rc := e.RunCost; rc != nil {
		pe.GPU, pe.GPUs = rc.GPU.V, rc.GPUs.V
		var h plan.Count
		if rc.GPUHours.Set {
			h = spreadCount(rc.GPUHours.V).Scale(1 / float64(max(rc.GPUs.V, 1)))
		} else {
			h = spreadCount(rc.Hours.V)
		}
		pe.Hours = lv.learned("environment."+e.Name+".hours_per_run", h)
		pe.GPUHours = pe.Hours.Scale(float64(rc.GPUs.V))
		// A run may take its high hours and no more: the caps hold it there.
		pe.TimeLimitSeconds = math.Ceil(pe.Hours.High * 3600)
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

// routed returns a critic's routed fraction per scenario.
func (lv *lowering) routed(cr *spec.Critic) vec {
	c := lv.routedShare(cr)
	return levels(c.Low, c.Expected, c.High, true)
}

// built returns the share of builds that succeed per scenario for the
// builder a block binds: 1 without a builder; else 1 - build_failures.
func (lv *lowering) built(builder spec.Ref) vec {
	r := lv.x.roles[builder.Name]
	if !builder.Set || r == nil {
		return levels(1, 1, 1, false)
	}
	f := lv.failures(r)
	return levels(1-f.High, 1-f.Expected, 1-f.Low, false)
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
	// unbounded says why nothing bounds the steps of a loop that spends
	// the budget; its steps per scenario then stand in for the low and
	// expected figures only.
	unbounded string
	// sampled is the groups a refresh samples per group it plans: 1, plus
	// the refill of dynamic sampling (see resampleFactor).
	sampled vec
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
			lp.sampled = resampleFactor(l)
			rw := x.rewards[l.Reward.Name]
			var frac vec
			if l.Screen.Set {
				frac = lv.routed(x.critics[l.Screen.Name])
			}
			ok := lv.built(l.Builder)
			allScen(func(sc int) {
				switch {
				case rw.Source.V == "real" && !l.Screen.Set:
					lp.runsPerCan[sc] = ok[sc]
				case l.Screen.Set && rw.Source.V != "predicted" && critRoutes(x.critics[l.Screen.Name]):
					lp.runsPerCan[sc] = ok[sc] * frac[sc]
				}
				lp.runsPerCan[sc] *= lp.sampled[sc] // refilled groups are judged like the rest
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
			frac, routes := lv.evoRouted(l)
			allScen(func(sc int) {
				n, _, _ := verified(l, ok[sc], frac[sc], routes)
				fixed[sc] += float64(tasks) * float64(l.Islands.V) * float64(l.Rounds.V) * n
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
			lv.unboundedSteps(bl)
		}
		if ms := bl.l.MaxSteps; ms.Set {
			for sc := range bl.steps {
				bl.steps[sc] = math.Min(bl.steps[sc], float64(ms.V))
			}
		}
		if bl.steps[scExpected] < 1 || bl.steps.count().Low < 1 {
			lv.c.add(diag.Errorf(CodeUntilBudget, bl.l.UntilBudget.Range, "budget.real_runs = %d buys no step of loop %q: fixed runs take %g and one step needs %g more",
				s.Budget.RealRuns.V, bl.l.Name, fixed[scHigh], bl.runs(1, scHigh)).
				WithDetail("raise budget.real_runs, or lower baseline (declare baselines), seed, calibration or evaluation runs"))
		}
	}

	var loops []*plan.Loop
	for _, l := range s.Loops {
		lp := lps[l.Name]
		steps := lp.steps.count()
		if lp.unbounded != "" {
			steps = plan.Unbounded(steps.Low, steps.Expected, lp.unbounded)
		}
		pl := &plan.Loop{Name: l.Name, Kind: l.Kind.V, Algorithm: l.Algorithm.V, Steps: steps, UntilBudget: l.UntilBudget.V, MaxSteps: l.MaxSteps.V,
			StatesPerStep: l.StatesPerStep.V, ProposalsPerState: l.ProposalsPerState.V, RolloutEvery: l.RolloutEvery.V,
			ZeroVariance: l.ZeroVariance.V, ResampleRounds: resampleRounds(l), Reward: l.Reward.Name, Screen: l.Screen.Name, LearningRate: l.LearningRate.V,
			Proposer: l.Proposer.Name, Builder: l.Builder.Name, Summarizer: l.Summarizer.Name,
			Islands: l.Islands.V, Rounds: l.Rounds.V, MigrationEvery: l.MigrationEvery.V, Ideas: ideasPerRound(l),
			Verifications: l.Verifications.V, Select: l.Select.V, Split: l.Split.V, Source: l.NameRange}
		if l.Builder.Set {
			pl.Repairs = l.Repairs.V
		}
		switch l.Kind.V {
		case "rl":
			if rw := x.rewards[l.Reward.Name]; rw != nil && rw.Source.V != "predicted" {
				pl.NewParent = "never"
				if l.NewParent.Set {
					pl.NewParent = l.NewParent.V
				}
			}
		case "evolution":
			pl.TopPrograms, pl.Features = l.TopPrograms.V, archiveFeatures(l)
			if len(pl.Features) > 0 {
				pl.DiversePrograms = l.DiversePrograms.V
			}
			if l.MigrationEvery.Set && l.Islands.V > 1 {
				pl.MigrationRate = l.MigrationRate.V
			}
		}
		if u := l.Update; u != nil && l.Kind.V == "rl" {
			pl.Update = lv.policyUpdate(l, pl.Steps)
		}
		if a, ok := plan.Algorithms[l.Algorithm.V]; ok && l.Kind.V == "rl" {
			pl.ClipLow, pl.ClipHigh, pl.KLCoef, pl.TokenLevel, pl.Epochs = a.ClipLow, a.ClipHigh, a.KLCoef, a.TokenLevel, a.Epochs
		}
		if cr := lv.judge(l); cr != nil {
			pl.Critic = cr.Name
			pl.Routes = routesWith(l) && critRoutes(cr)
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
			frac, routes := lv.evoRouted(l)
			allScen(func(sc int) {
				for _, e := range s.Environments {
					ir := float64(envTaskCount(e, l.Split.V)) * float64(l.Islands.V) * float64(l.Rounds.V)
					ideas := ir * float64(ideasPerRound(l))
					n, lo, hi := verified(l, ok[sc], frac[sc], routes)
					r.addRuns(e.Name, sc, ir*n)
					r.addRunBounds(e.Name, sc, ir*lo, ir*hi)
					r.cand[sc] += ideas
					r.addLLM(l.Proposer.Name, sc, ideas)
					if l.Builder.Set {
						r.addBuilds(l.Builder.Name, sc, ideas, ok[sc], l.Repairs.V)
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
		// Every arm makes k proposals per state of every task; each is
		// built, and what builds is predicted (with a predictor) and run.
		perArm := float64(max(ev.States.V, 1) * max(ev.AvgAt.V, ev.BestAt.V))
		arms := evalArms(ev)
		ok := lv.built(ev.Builder)
		allScen(func(sc int) {
			for _, e := range s.Environments {
				tasks := float64(envTaskCount(e, ev.Split.V))
				for _, a := range arms {
					n := tasks * perArm
					r.addRuns(e.Name, sc, n*ok[sc])
					r.cand[sc] += n
					r.addLLM(a.Proposer, sc, n)
					if ev.Builder.Set {
						r.addLLM(ev.Builder.Name, sc, n)
					}
					if ev.Predictor.Set {
						r.addLLM(ev.Predictor.Name, sc, n*ok[sc])
					}
				}
			}
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
					c = c.CapHigh(math.Max(c.Low, float64(s.Budget.RealRuns.V)-othersLow(raws, r)))
				}
				if lo := r.runsLo[k]; lo != nil {
					c.Low, c.High = math.Min(c.Low, r.count(*lo).Low), math.Max(c.High, r.count(*r.runsHi[k]).High)
				}
				ph.Calls.RealRuns[k] = c
			}
		}
		if len(r.llm) > 0 {
			ph.Calls.LLM = map[string]plan.Count{}
			for k, v := range r.llm {
				c := r.count(*v)
				if h := r.llmHigh[k]; h != nil {
					c.High = math.Max(c.High, r.count(*h).High)
				}
				ph.Calls.LLM[k] = c
			}
		}
		if ph.Kind == plan.PhaseRL {
			ph.Steps, ph.Refreshes = r.steps.count(), r.refreshes.count()
		}
		phases = append(phases, ph)
	}
	return loops, phases
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
	r.unbounded = lp.unbounded
	rw := x.rewards[l.Reward.Name]
	names, w := lv.splitWeights(l.Split.V)
	// One critic judges a candidate: the screen, or a labelling predictor.
	judge := lv.judge(l)
	frac := levels(1, 1, 1, true)
	if l.Screen.Set {
		frac = lv.routed(x.critics[l.Screen.Name])
	}
	ok := lv.built(l.Builder)
	// Each refresh's states, spread over the environments by their tasks:
	// the runtime draws each state's task within its environment, so the
	// real runs per environment are these, whichever tasks are drawn.
	perEnv := spread(l.StatesPerStep.V, w)
	r.ph.Proposals = map[string]int{}
	for k, n := range perEnv {
		if n > 0 {
			r.ph.Proposals[names[k]] = n
		}
	}
	G := float64(l.ProposalsPerState.V)
	for sc := 0; sc < nScenarios; sc++ {
		st := lp.steps[sc]
		ref := lp.refreshes(st)
		cand := ref * lp.perRefresh * lp.sampled[sc]
		r.steps[sc], r.refreshes[sc], r.cand[sc] = st, ref, cand
		r.addLLM(l.Proposer.Name, sc, cand)
		// Every candidate is built first: the builder decides whether it
		// is feasible, and one that does not build gets the infeasible
		// reward without a prediction, a verdict or a run.
		if l.Builder.Set {
			r.addBuilds(l.Builder.Name, sc, cand, ok[sc], l.Repairs.V)
		}
		switch {
		case rw.Source.V == "predicted":
			r.addLLM(rw.Predictor.Name, sc, cand*ok[sc])
		case rw.Source.V == "real" && !l.Screen.Set:
			for k, n := range perEnv {
				r.addRuns(names[k], sc, ref*float64(n)*G*ok[sc])
			}
		default: // judged by a critic
			// Only candidates that build are summarized, judged and routed.
			if l.Summarizer.Set {
				r.addLLM(l.Summarizer.Name, sc, cand*ok[sc])
			}
			if judge != nil {
				r.addLLM(judge.Role.Name, sc, cand*ok[sc]*float64(judge.Votes.V))
			}
			if l.Screen.Set && critRoutes(x.critics[l.Screen.Name]) {
				for k, n := range perEnv {
					r.addRuns(names[k], sc, ref*float64(n)*G*ok[sc]*frac[sc])
				}
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
		// The round's runs per environment, as its counts spread them: the
		// runtime picks the best-rated proposals of each environment up to
		// its share, so the per-environment counts hold whichever
		// environment's proposals rate best.
		names, w := lv.splitWeights(l.Split.V)
		cr.ph.Proposals = map[string]int{}
		for k, n := range spread(calRuns[i], w) {
			if n > 0 {
				cr.ph.Proposals[names[k]] = n
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
			n := float64(calRuns[i])
			if ok[sc] == 0 {
				n = 0
			}
			lv.spreadRuns(cr, sc, n, l.Split.V)
			cr.cand[sc] = float64(calRuns[i])
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
	adapter := u.Adapter.V
	if !u.Adapter.Set || adapter == "" {
		adapter = l.Name
	}
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
		GPUHours: gpuh, USD: gpuh * price, Adapter: adapter, Updates: n, Source: firstValid(u.Range, l.NameRange)}
}
