package runcompare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// variantOf is the variant of p called name, or its first.
func variantOf(p *plan.Plan, name string) *plan.Variant {
	if p == nil || len(p.Variants) == 0 {
		return nil
	}
	for _, v := range p.Variants {
		if v.Name == name {
			return v
		}
	}
	return p.Variants[0]
}

// Learn turns what run id measured into figures that replace a spec's
// assumptions, by assumption name (compiler.Options.Learned): the share
// each critic routed, the share of builds each builder role failed, the
// mean hours of a real run per environment, and the mean tokens in and
// out and seconds per call of each role. A figure the run has no data for
// is returned with Missing set, so the spec's value stays and says why.
func Learn(p *plan.Plan, variant string, tot *runtime.Totals, tim *runtime.Timing, id string) map[string]compiler.Learned {
	v := variantOf(p, variant)
	if v == nil || tot == nil || tot.Measured == nil {
		return nil
	}
	from := "run " + id
	out := map[string]compiler.Learned{}
	put := func(name string, x float64, ok bool, missing string) {
		if ok {
			out[name] = compiler.Learned{Value: plan.Exact(x), From: from}
		} else {
			out[name] = compiler.Learned{Missing: from + " " + missing}
		}
	}
	m := tot.Measured
	judged, routed := map[string]int{}, map[string]int{}
	for _, l := range v.Loops {
		if !l.Routes || l.Critic == "" {
			continue
		}
		judged[l.Critic] += 0
		if ml := m.Loops[l.Name]; ml != nil {
			judged[l.Critic] += ml.Judged
			routed[l.Critic] += ml.Routed
		}
	}
	for cr, n := range judged {
		put("critic."+cr+".routed_share", float64(routed[cr])/float64(max(n, 1)), n > 0, "judged no candidate")
	}
	builders := map[string]bool{}
	for _, l := range v.Loops {
		builders[l.Builder] = l.Builder != ""
	}
	for _, ph := range v.Phases {
		b := ph.Builder()
		builders[b] = builders[b] || b != ""
	}
	for b, ok := range builders {
		if !ok {
			continue
		}
		mr := m.Roles[b]
		n, failed := 0, 0
		if mr != nil {
			n, failed = mr.Built, mr.BuildFailed
		}
		put("role."+b+".build_failures", float64(failed)/float64(max(n, 1)), n > 0, "built nothing with it")
	}
	for _, e := range v.Envs {
		var et *runtime.EnvTiming
		if tim != nil {
			et = tim.Environments[e.Name]
		}
		put("environment."+e.Name+".hours_per_run", hoursPerRun(et), et != nil && et.Runs > 0, "timed no real run of it")
	}
	for _, r := range v.Roles {
		mr := m.Roles[r.Name]
		calls := 0
		if mr != nil {
			calls = mr.Calls
		}
		if calls > 0 {
			put("role."+r.Name+".tokens_in", float64(mr.TokensIn)/float64(calls), true, "")
			put("role."+r.Name+".tokens_out", float64(mr.TokensOut)/float64(calls), true, "")
		} else {
			put("role."+r.Name+".tokens_in", 0, false, "made no call of it")
			put("role."+r.Name+".tokens_out", 0, false, "made no call of it")
		}
		var rt *runtime.RoleTiming
		if tim != nil {
			rt = tim.Roles[r.Name]
		}
		if rt != nil && rt.Calls > 0 {
			put("role."+r.Name+".seconds", rt.SecondsPerCall, true, "")
		} else {
			put("role."+r.Name+".seconds", 0, false, "timed no call of it")
		}
	}
	return out
}

func hoursPerRun(et *runtime.EnvTiming) float64 {
	if et == nil {
		return 0
	}
	return et.HoursPerRun
}

// SameShape reports how the plan a run made differs in structure from p:
// its loops, critics, roles, environments and phases (by name and kind).
// Figures an estimate learns from a run mean something for p only when
// they name the same things.
func SameShape(run, p *plan.Plan, variant string) error {
	a, b := variantOf(run, variant), variantOf(p, variant)
	if a == nil || b == nil {
		return fmt.Errorf("a plan has no variant")
	}
	shape := func(v *plan.Variant) map[string][]string {
		m := map[string][]string{}
		for _, l := range v.Loops {
			m["loops"] = append(m["loops"], l.Name+" ("+l.Kind+")")
		}
		for _, c := range v.Critics {
			m["critics"] = append(m["critics"], c.Name)
		}
		for _, r := range v.Roles {
			m["roles"] = append(m["roles"], r.Name+" ("+r.Kind+")")
		}
		for _, e := range v.Envs {
			m["environments"] = append(m["environments"], e.Name)
		}
		for _, ph := range v.Phases {
			m["phases"] = append(m["phases"], ph.Name)
		}
		for _, l := range m {
			slices.Sort(l)
		}
		return m
	}
	sa, sb := shape(a), shape(b)
	for _, k := range []string{"loops", "critics", "roles", "environments", "phases"} {
		if !slices.Equal(sa[k], sb[k]) {
			return fmt.Errorf("the run's %s are [%s], the spec's [%s]", k, strings.Join(sa[k], ", "), strings.Join(sb[k], ", "))
		}
	}
	return nil
}

// Predict sets a run's figures beside what the estimate of learned (a plan
// compiled with the run's own measurements) predicts for it: real runs,
// LLM calls, GPU-hours and dollars in total, real runs and GPU-hours per
// environment, calls per role. The run's GPU-hours are measured ones:
// each environment's timed hours, its untimed runs at their mean, times
// its GPUs; its dollars those at the run's GPU prices plus its LLM
// dollars. (The budget holds each run at the plan's high hours instead.)
func Predict(learned *plan.Plan, variant string, run *plan.Plan, tot *runtime.Totals, tim *runtime.Timing) []runtime.Prediction {
	lv, rv := variantOf(learned, variant), variantOf(run, variant)
	if lv == nil || rv == nil || tot == nil || tot.Measured == nil {
		return nil
	}
	r := estimate.Estimate(&plan.Plan{Name: learned.Name, Variants: []*plan.Variant{lv}})
	m := tot.Measured
	var out []runtime.Prediction
	add := func(name string, predicted, actual float64) {
		e := 0.0
		if actual != 0 {
			e = (predicted - actual) / actual
		} else if predicted != 0 {
			e = 1 // the run made none: count it as 100% off
		}
		out = append(out, runtime.Prediction{Figure: name, Predicted: predicted, Actual: actual, Error: e})
	}
	gpuh, usd := 0.0, tot.LLMUSD
	envRows := []runtime.Prediction{}
	for _, e := range rv.Envs {
		runs := 0
		if me := m.Environments[e.Name]; me != nil {
			runs = me.RealRuns
		}
		h := 0.0
		if tim != nil {
			if et := tim.Environments[e.Name]; et != nil && et.Runs > 0 {
				h = et.Hours + float64(max(runs-et.Runs, 0))*et.HoursPerRun
			}
		}
		gh := h * float64(e.GPUs)
		gpuh += gh
		usd += gh * rv.Prices[e.GPU]
		if pe := r.Environments[e.Name]; pe != nil {
			envRows = append(envRows,
				runtime.Prediction{Figure: "environments." + e.Name + ".real_runs", Predicted: pe.RealRuns.Expected, Actual: float64(runs)},
				runtime.Prediction{Figure: "environments." + e.Name + ".gpu_hours", Predicted: pe.GPUHours.Expected, Actual: gh})
		}
	}
	add("totals.real_runs", r.Totals.RealRuns.Expected, float64(tot.RealRuns))
	add("totals.llm_calls", r.Totals.LLMCalls.Expected, float64(tot.LLMCalls))
	add("totals.gpu_hours", r.Totals.GPUHours.Expected, gpuh)
	add("totals.usd", r.Totals.USD.Expected, usd)
	for _, row := range envRows {
		add(row.Figure, row.Predicted, row.Actual)
	}
	for _, name := range keys(r.Roles) {
		calls := 0
		if mr := m.Roles[name]; mr != nil {
			calls = mr.Calls
		}
		add("roles."+name+".calls", r.Roles[name].Calls.Expected, float64(calls))
	}
	return out
}
