package estimate

import (
	"fmt"
	"math"
	"sort"

	"assay/compiler/plan"
)

// Totals are the whole-experiment figures.
type Totals struct {
	RealRuns  plan.Count `json:"real_runs"`
	GPUHours  plan.Count `json:"gpu_hours"`
	USD       plan.Count `json:"usd"`
	USDGPU    plan.Count `json:"usd_gpu"`
	USDLLM    plan.Count `json:"usd_llm"`
	LLMCalls  plan.Count `json:"llm_calls"`
	LLMTokens plan.Count `json:"llm_tokens"`
	WallHours plan.Count `json:"wall_hours"`
	// uncappedRuns is the high real-run figure before the cap bounds it.
	uncappedRuns float64
}

func (t *Totals) add(o *Totals) {
	t.RealRuns = t.RealRuns.Add(o.RealRuns)
	t.GPUHours = t.GPUHours.Add(o.GPUHours)
	t.USD = t.USD.Add(o.USD)
	t.USDGPU = t.USDGPU.Add(o.USDGPU)
	t.USDLLM = t.USDLLM.Add(o.USDLLM)
	t.LLMCalls = t.LLMCalls.Add(o.LLMCalls)
	t.LLMTokens = t.LLMTokens.Add(o.LLMTokens)
	t.WallHours = t.WallHours.Add(o.WallHours)
	t.uncappedRuns += o.uncappedRuns
}

// Role is one LLM role's calls, tokens and dollars.
type Role struct {
	Calls     plan.Count `json:"calls"`
	TokensIn  plan.Count `json:"tokens_in"`
	TokensOut plan.Count `json:"tokens_out"`
	USD       plan.Count `json:"usd"`
}

// Loop is one loop's policy steps (rounds for evolution), candidates and
// real runs.
type Loop struct {
	Steps      plan.Count `json:"steps"`
	Candidates plan.Count `json:"candidates"`
	RealRuns   plan.Count `json:"real_runs"`
	// Updates are the loop's policy updates by its update command, when it
	// has one: how many, their GPU-hours and their dollars.
	Updates *Updates `json:"updates,omitempty"`
}

// Updates are a loop's policy updates and their cost.
type Updates struct {
	Count    plan.Count `json:"count"`
	GPUHours plan.Count `json:"gpu_hours"`
	USD      plan.Count `json:"usd"`
}

// Environment is one environment's real runs and their cost.
type Environment struct {
	RealRuns plan.Count `json:"real_runs"`
	GPUHours plan.Count `json:"gpu_hours"`
	USD      plan.Count `json:"usd"`
}

// Phase is one phase's share of the totals.
type Phase struct {
	Name      string     `json:"name"`
	Kind      string     `json:"kind"`
	RealRuns  plan.Count `json:"real_runs"`
	LLMCalls  plan.Count `json:"llm_calls"`
	USD       plan.Count `json:"usd"`
	WallHours plan.Count `json:"wall_hours"`
}

// Breakdown is the estimate of one variant, or of a whole sweep summed.
type Breakdown struct {
	Totals         Totals                  `json:"totals"`
	GPUHoursByType map[string]plan.Count   `json:"gpu_hours_by_type"`
	Roles          map[string]*Role        `json:"roles"`
	Loops          map[string]*Loop        `json:"loops"`
	Environments   map[string]*Environment `json:"environments"`
}

// Variant is one variant's estimate.
type Variant struct {
	Name      string         `json:"name"`
	Overrides map[string]any `json:"overrides,omitempty"`
	Breakdown
	Phases []*Phase `json:"phases"`
	// Assumptions are the figures this variant's estimate takes as given.
	Assumptions []*Assumption `json:"assumptions,omitempty"`
}

// Assumption is a figure the estimate takes as given, and where it comes
// from: a file:line:col of the spec, or "default".
type Assumption struct {
	Name    string     `json:"name"`
	Value   plan.Count `json:"value"`
	From    string     `json:"from"`
	Affects string     `json:"affects"`
}

// Report is the estimate of a plan. Without a sweep, its figures are the one
// variant's and Variants is empty; with a sweep, Variants lists each one and
// the top-level figures are summed over them (the cost of the whole sweep).
type Report struct {
	Plan string `json:"plan"`
	Hash string `json:"hash"`
	Breakdown
	Phases []*Phase `json:"phases,omitempty"`
	// Assumptions are those of the plan's only variant; with a sweep each
	// variant lists its own.
	Assumptions []*Assumption `json:"assumptions,omitempty"`
	Variants    []*Variant    `json:"variants,omitempty"`
}

func newBreakdown() Breakdown {
	return Breakdown{GPUHoursByType: map[string]plan.Count{}, Roles: map[string]*Role{}, Loops: map[string]*Loop{}, Environments: map[string]*Environment{}}
}

// Estimate prices every variant of p.
func Estimate(p *plan.Plan) *Report {
	r := &Report{Plan: p.Name, Hash: p.Hash, Breakdown: newBreakdown()}
	for _, v := range p.Variants {
		ve := estimateVariant(v)
		r.Variants = append(r.Variants, ve)
		r.Breakdown.add(&ve.Breakdown)
	}
	if len(r.Variants) == 1 {
		r.Phases = r.Variants[0].Phases
		r.Assumptions = r.Variants[0].Assumptions
		r.Variants = nil
	}
	return r
}

func (b *Breakdown) add(o *Breakdown) {
	b.Totals.add(&o.Totals)
	for k, v := range o.GPUHoursByType {
		b.GPUHoursByType[k] = b.GPUHoursByType[k].Add(v)
	}
	for k, v := range o.Roles {
		r := b.Roles[k]
		if r == nil {
			r = &Role{}
			b.Roles[k] = r
		}
		r.Calls, r.TokensIn, r.TokensOut, r.USD = r.Calls.Add(v.Calls), r.TokensIn.Add(v.TokensIn), r.TokensOut.Add(v.TokensOut), r.USD.Add(v.USD)
	}
	for k, v := range o.Loops {
		l := b.Loops[k]
		if l == nil {
			l = &Loop{}
			b.Loops[k] = l
		}
		l.Steps, l.Candidates, l.RealRuns = l.Steps.Add(v.Steps), l.Candidates.Add(v.Candidates), l.RealRuns.Add(v.RealRuns)
		if u := v.Updates; u != nil {
			if l.Updates == nil {
				l.Updates = &Updates{}
			}
			l.Updates.Count, l.Updates.GPUHours, l.Updates.USD = l.Updates.Count.Add(u.Count), l.Updates.GPUHours.Add(u.GPUHours), l.Updates.USD.Add(u.USD)
		}
	}
	for k, v := range o.Environments {
		e := b.Environments[k]
		if e == nil {
			e = &Environment{}
			b.Environments[k] = e
		}
		e.RealRuns, e.GPUHours, e.USD = e.RealRuns.Add(v.RealRuns), e.GPUHours.Add(v.GPUHours), e.USD.Add(v.USD)
	}
}

// concurrency is the real runs of env that can be in flight at once:
// executor.concurrency, bounded by executor.gpus / run_cost.gpus.
func concurrency(ex plan.Executor, e *plan.Environment) float64 {
	c := max(ex.Concurrency, 1)
	if ex.GPUs > 0 && e.GPUs > 0 {
		c = min(c, max(ex.GPUs/e.GPUs, 1))
	}
	return float64(c)
}

func estimateVariant(v *plan.Variant) *Variant {
	out := &Variant{Name: v.Name, Overrides: v.Overrides, Breakdown: newBreakdown()}
	for _, a := range v.Assumptions {
		from := "default"
		if a.Source.Valid() {
			from = fmt.Sprintf("%s:%d:%d", a.Source.Filename, a.Source.Start.Line, a.Source.Start.Column)
		}
		out.Assumptions = append(out.Assumptions, &Assumption{Name: a.Name, Value: a.Value, From: from, Affects: a.Affects})
	}
	envs := map[string]*plan.Environment{}
	for _, e := range v.Envs {
		envs[e.Name] = e
		out.Environments[e.Name] = &Environment{}
	}
	roles := map[string]*plan.Role{}
	for _, r := range v.Roles {
		roles[r.Name] = r
		out.Roles[r.Name] = &Role{}
	}
	loops := map[string]*plan.Loop{}
	for _, l := range v.Loops {
		out.Loops[l.Name] = &Loop{Steps: l.Steps}
		loops[l.Name] = l
	}
	t := &out.Totals
	for _, ph := range v.Phases {
		pe := &Phase{Name: ph.Name, Kind: ph.Kind}
		for _, name := range sortedKeys(ph.Calls.RealRuns) {
			n := ph.Calls.RealRuns[name]
			e := envs[name]
			if e == nil {
				continue // the compiler never emits this; a hand-edited plan might
			}
			gh := n.Scale(e.GPUHours)
			usd := gh.Scale(v.Prices[e.GPU])
			ee := out.Environments[name]
			ee.RealRuns, ee.GPUHours, ee.USD = ee.RealRuns.Add(n), ee.GPUHours.Add(gh), ee.USD.Add(usd)
			out.GPUHoursByType[e.GPU] = out.GPUHoursByType[e.GPU].Add(gh)
			t.RealRuns, t.GPUHours, t.USDGPU = t.RealRuns.Add(n), t.GPUHours.Add(gh), t.USDGPU.Add(usd)
			pe.RealRuns, pe.USD = pe.RealRuns.Add(n), pe.USD.Add(usd)
			pe.WallHours = pe.WallHours.Add(n.Scale(e.Hours / concurrency(v.Executor, e)))
		}
		for _, name := range sortedKeys(ph.Calls.LLM) {
			n := ph.Calls.LLM[name]
			r := roles[name]
			if r == nil {
				continue
			}
			in, outTok := n.Scale(r.TokensIn), n.Scale(r.TokensOut)
			usd := in.Scale(r.PriceIn / 1e6).Add(outTok.Scale(r.PriceOut / 1e6))
			re := out.Roles[name]
			re.Calls, re.TokensIn, re.TokensOut, re.USD = re.Calls.Add(n), re.TokensIn.Add(in), re.TokensOut.Add(outTok), re.USD.Add(usd)
			t.LLMCalls, t.LLMTokens, t.USDLLM = t.LLMCalls.Add(n), t.LLMTokens.Add(in).Add(outTok), t.USDLLM.Add(usd)
			pe.LLMCalls, pe.USD = pe.LLMCalls.Add(n), pe.USD.Add(usd)
			pe.WallHours = pe.WallHours.Add(n.Scale(r.Seconds / 3600 / float64(max(r.Concurrency, 1))))
		}
		if ph.Kind == plan.PhaseRL && loops[ph.Loop] != nil && loops[ph.Loop].Update != nil {
			// The loop's policy updates run in its phase, one after another
			// between steps, each reserved like a real run.
			u := loops[ph.Loop].Update
			gh := u.Updates.Scale(u.GPUHours)
			usd := u.Updates.Scale(u.USD)
			out.Loops[ph.Loop].Updates = &Updates{Count: u.Updates, GPUHours: gh, USD: usd}
			out.GPUHoursByType[u.GPU] = out.GPUHoursByType[u.GPU].Add(gh)
			t.GPUHours, t.USDGPU = t.GPUHours.Add(gh), t.USDGPU.Add(usd)
			pe.USD = pe.USD.Add(usd)
			pe.WallHours = pe.WallHours.Add(u.Updates.Scale(u.Hours))
		}
		if ph.Loop != "" {
			if l := out.Loops[ph.Loop]; l != nil {
				// Calibration reruns proposals already scored, so only the
				// loop's own phase adds candidates.
				if ph.Kind == plan.PhaseRL || ph.Kind == plan.PhaseEvolution {
					l.Candidates = l.Candidates.Add(ph.Calls.Candidates)
				}
				l.RealRuns = l.RealRuns.Add(sumCounts(ph.Calls.RealRuns))
			}
		}
		t.WallHours = t.WallHours.Add(pe.WallHours)
		out.Phases = append(out.Phases, pe)
	}
	t.USD = t.USDGPU.Add(t.USDLLM)
	// The runtime reserves every real run against budget.real_runs, so no
	// run of this plan makes more: the high figure is the cap at most. The
	// unclamped figure stays for CheckCaps, which warns that such a run may
	// stop at the cap before the plan is done.
	t.uncappedRuns = t.RealRuns.High
	if c := float64(v.Budget.RealRuns); c > 0 {
		t.RealRuns.High = math.Min(t.RealRuns.High, c)
		t.RealRuns.Expected = math.Min(t.RealRuns.Expected, c)
		for _, e := range out.Environments {
			e.RealRuns.High = math.Min(e.RealRuns.High, c)
		}
	}
	return out
}

func sumCounts(m map[string]plan.Count) plan.Count {
	var c plan.Count
	for _, k := range sortedKeys(m) {
		c = c.Add(m[k])
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// round6 trims floating-point noise from sums, so 0.1+0.2 prints as 0.3.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
