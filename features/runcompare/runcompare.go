package runcompare

import (
	"maps"
	"slices"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// Rows compares a run's totals with the estimate of variant of p (the
// first when variant is empty). It returns nil when the run measured
// nothing (a run journaled before measuring began).
func Rows(p *plan.Plan, variant string, tot *runtime.Totals) []runtime.Comparison {
	if p == nil || tot == nil || tot.Measured == nil || len(p.Variants) == 0 {
		return nil
	}
	vi := 0
	for i, v := range p.Variants {
		if v.Name == variant {
			vi = i
		}
	}
	r := estimate.Estimate(p)
	b, phases := r.Breakdown, r.Phases
	if len(r.Variants) > 0 {
		b, phases = r.Variants[vi].Breakdown, r.Variants[vi].Phases
	}
	m := tot.Measured
	var out []runtime.Comparison
	add := func(name string, c plan.Count, got float64) {
		const eps = 1e-6
		side := ""
		switch {
		case got < c.Low-eps:
			side = "below"
		case got > c.High+eps:
			side = "above"
		}
		out = append(out, runtime.Comparison{Figure: name, Low: c.Low, Expected: c.Expected, High: c.High, Measured: got,
			Within: side == "", Side: side, Reason: c.Reason})
	}
	add("totals.real_runs", b.Totals.RealRuns, float64(tot.RealRuns))
	add("totals.llm_calls", b.Totals.LLMCalls, float64(tot.LLMCalls))
	add("totals.gpu_hours", b.Totals.GPUHours, tot.GPUHours)
	add("totals.usd", b.Totals.USD, tot.USD)
	for _, name := range keys(b.Roles) {
		got := 0
		if mr := m.Roles[name]; mr != nil {
			got = mr.Calls
		}
		add("roles."+name+".calls", b.Roles[name].Calls, float64(got))
	}
	// A role the estimate does not know was called: nothing bounds it.
	for _, name := range keys(m.Roles) {
		if b.Roles[name] == nil {
			add("roles."+name+".calls", plan.Count{}, float64(m.Roles[name].Calls))
		}
	}
	for _, name := range keys(b.Loops) {
		ml := m.Loops[name]
		if ml == nil {
			ml = &runtime.MeasuredLoop{}
		}
		add("loops."+name+".steps", b.Loops[name].Steps, float64(ml.Steps))
		add("loops."+name+".candidates", b.Loops[name].Candidates, float64(ml.Candidates))
		if u := b.Loops[name].Updates; u != nil {
			add("loops."+name+".updates", u.Count, float64(ml.Updates))
		}
	}
	for _, name := range keys(b.Environments) {
		got := 0
		if me := m.Environments[name]; me != nil {
			got = me.RealRuns
		}
		add("environments."+name+".real_runs", b.Environments[name].RealRuns, float64(got))
	}
	for _, ph := range phases {
		got := 0
		if mp := m.Phases[ph.Name]; mp != nil {
			got = mp.RealRuns
		}
		add("phases."+ph.Name+".real_runs", ph.RealRuns, float64(got))
	}
	// The assumptions, measured: the share a loop's critic routed.
	v := p.Variants[vi]
	for _, l := range v.Loops {
		ml := m.Loops[l.Name]
		if ml == nil || ml.Judged == 0 || !l.Routes {
			continue
		}
		for _, c := range v.Critics {
			if c.Name == l.Critic {
				add("loops."+l.Name+".routed_share", c.Routed, ml.RoutedShare)
			}
		}
	}
	return out
}

func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
