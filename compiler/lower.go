package compiler

import (
	"math"
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// lower builds the plan: one plan.Variant per variant, with its phases and
// the count of every plugin call (see the package plan's Phase).
func lower(c *compilation) {
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Name: planName(c.spec)}
	for _, v := range c.variants {
		lv := &lowering{c: c, s: v.spec, x: v.idx}
		out := lv.variant()
		name := ""
		if len(c.variants) > 1 {
			name = v.name
		}
		lv.refuse(lv.short, name)
		out.Name, out.Overrides = v.name, nil
		if len(v.overrides) > 0 {
			out.Overrides = v.overrides
		}
		p.Variants = append(p.Variants, out)
	}
	if len(c.overrides) > 0 {
		p.Overrides = c.overrides
	}
	p.Missing = unsupplied(c.spec)
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

type lowering struct {
	c *compilation
	s *spec.Spec
	x *index
	// short are the caps that cannot pay for what the variant's phases
	// hold back (holdBack), reported once the variant is lowered.
	short []shortfall
	// repairRuns is, per phase, the real runs of its high that repairs of
	// candidates' runs add (lower_repairs.go).
	repairRuns map[string]float64
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
			Concurrency: r.Concurrency.V, Seconds: lv.seconds(r).Expected, Attempts: callAttempts(s, r.LLM.Name), Source: r.NameRange,
			Prompt: lowerPrompt(r), Answer: lowerAnswer(r)}
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
			put("poll_seconds", sl.PollSeconds.Set, sl.PollSeconds.V)
			out.Executor.Slurm = m
		}
	}
	out.Loops, out.Phases = lv.phases()
	lv.short = holdBack(out, lv.repairRuns)
	out.Assumptions = lv.assumptions(out)
	return out
}

// timeLimit is the wall-time limit of a job (a real run, a policy or
// critic update) that may take hours and no more, since the caps hold it
// there: the hours in whole seconds, rounded up, which every executor can
// enforce (0 for none declared).
func timeLimit(hours float64) float64 {
	if !(hours > 0) || math.IsInf(hours, 1) {
		return 0
	}
	return math.Ceil(hours * 3600)
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
		pe.TimeLimitSeconds = timeLimit(pe.Hours.High)
	}
	for _, t := range envTasks(e, "") {
		pt := &plan.Task{Name: t.Name, Split: t.Split.V, Direction: pe.Direction}
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
		if st := t.Suite; st != nil {
			pt.Domain, pt.Description, pt.Metric = st.Domain, st.Description, st.Metric
			pt.Criteria, pt.CriteriaFrom = st.Criteria, st.CriteriaFrom
			if !st.Has("bounds.low") && !st.Has("bounds.high") {
				pt.Bounds = &plan.Bounds{Low: st.Low, High: st.High}
			}
			pt.Command = append([]string(nil), st.Command...)
			pt.CriticSplit, pt.Unscored = st.CriticSplit, st.Unscored
			pe.Missing, pt.Missing = lowerMissing(pe.Missing, st.Unfilled)
		}
		// A suite task's scaffold is its seed program in source mode; in
		// knob mode it is the directory its command runs in.
		if pt.Source = lowerSource(lv.s, e, t); pt.Source == nil && t.Suite != nil {
			st := t.Suite
			pt.Scaffold = &plan.Scaffold{Repository: st.Dir, Revision: st.Revision, Editable: append([]string(nil), st.Editable...)}
		}
		pe.Tasks = append(pe.Tasks, pt)
	}
	return pe
}

func ptr[T any](v T) *T { return &v }

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

// planFormula carries a checked formula into the plan: its text and the
// tree the formulas pass parsed and checked. A formula that pass did not
// check is a compiler bug.
func (lv *lowering) planFormula(src string) plan.Formula {
	e := lv.c.checked[src]
	if e == nil {
		panic("compiler: lowering a formula the formulas pass did not check: " + src)
	}
	return plan.Formula{Source: src, Tree: e.Tree()}
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

// calibrationPlan is the calibration of the RL phase of the loop the
// calibration block names, without its rounds (calibrationRounds adds
// them); nil without a calibration block. It states how a round compares predicted and real gains: as the
// calibrated loop's reward shapes them, normalised and clipped; shaper is
// that reward (nil when the loop names none). The lowering writes the
// statement into the plan and the applies pass reads shaper from it to
// tell whether a reward's normalize and clip take effect, so the rule is
// declared here once.
func calibrationPlan(s *spec.Spec, x *index) (pc *plan.Calibration, shaper *spec.Reward) {
	cal := s.Calibration
	if cal == nil {
		return nil, nil
	}
	pc = &plan.Calibration{Select: cal.Select.V}
	if l := x.loops[cal.Loop.Name]; l != nil && l.Reward.Set {
		shaper = x.rewards[l.Reward.Name]
	}
	if shaper != nil {
		pc.Normalize, pc.Clip = shaper.Normalize.V, shaper.Clip.V
	}
	return pc, shaper
}
