package compiler

import (
	"fmt"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/stdlib"
)

// assumptions lists what the estimate of a variant takes as given: the
// routed share of each critic that routes, the build-failure share of each
// builder a block calls, each role's tokens and seconds per call, each
// environment's hours per run and each GPU's price, with where each comes
// from: the spec (a range), a preset, a compiler default, or a run whose
// measurements replace the spec's figure.
func (lv *lowering) assumptions(v *plan.Variant) []*plan.Assumption {
	as := &assumed{lv: lv}
	as.routing(v)
	as.roles(v)
	as.loops()
	as.envs(v)
	as.prices(v)
	return as.out
}

// assumed collects a variant's assumptions, in the order the estimate
// lists them.
type assumed struct {
	lv  *lowering
	out []*plan.Assumption
}

// add adds an assumption; its source is the first valid range of at, and
// a figure a run measured replaces the spec's.
func (as *assumed) add(name string, c plan.Count, affects string, at ...diag.Range) {
	a := &plan.Assumption{Name: name, Value: c, Affects: affects}
	if l, ok := as.lv.c.opts.Learned[name]; ok && l.Missing == "" {
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
	as.out = append(as.out, a)
}

// routing adds the routed share of each critic a loop routes with.
func (as *assumed) routing(v *plan.Variant) {
	lv, x, add := as.lv, as.lv.x, as.add
	for _, l := range v.Loops {
		if !l.Routes {
			continue
		}
		if cr := x.critics[l.Critic]; cr != nil {
			add("critic."+cr.Name+".routed_share", lv.routedShare(cr), "real runs, and steps of a loop that spends the budget: loop "+l.Name, cr.ExpectedRouted.Range)
		}
	}
}

// roles adds each role's tokens and seconds per call, and the build
// failures of each builder a block calls.
func (as *assumed) roles(v *plan.Variant) {
	lv, s, add := as.lv, as.lv.s, as.add
	builders := map[string]bool{}
	for _, l := range v.Loops {
		builders[l.Builder] = true
	}
	for _, ph := range v.Phases {
		builders[ph.Builder()] = true
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
}

// loops adds each loop's dropped share and policy update hours.
func (as *assumed) loops() {
	s, add := as.lv.s, as.add
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
}

// envs adds each environment's hours per run.
func (as *assumed) envs(v *plan.Variant) {
	x, add := as.lv.x, as.add
	for _, e := range v.Envs {
		if se := x.envs[e.Name]; se != nil && se.RunCost != nil {
			add("environment."+e.Name+".hours_per_run", e.Hours, "GPU-hours, dollars and wall-clock hours of its real runs; the caps hold each run at the high figure", se.RunCost.Hours.Range, se.RunCost.GPUHours.Range, se.RunCost.Range)
		}
	}
}

// prices adds the price of each GPU a run or update of the variant uses.
func (as *assumed) prices(v *plan.Variant) {
	lv, s, add := as.lv, as.lv.s, as.add
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
			as.out[len(as.out)-1].From = "preset " + pp
		}
	}
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
