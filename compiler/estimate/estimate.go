package estimate

import (
	"fmt"
	"math"
	"sort"

	"github.com/assay-lang/assay/compiler/plan"
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
	// uncapped are the figures before the caps bound them, for CheckCaps:
	// an expected figure over a cap is an error, a high one a warning that
	// a run may stop at the cap.
	uncapped capped
}

// capped are the figures a cap bounds, before it does.
type capped struct{ runs, gpuHours, usd, wall plan.Count }

func (t *Totals) add(o *Totals) {
	t.RealRuns = t.RealRuns.Add(o.RealRuns)
	t.GPUHours = t.GPUHours.Add(o.GPUHours)
	t.USD = t.USD.Add(o.USD)
	t.USDGPU = t.USDGPU.Add(o.USDGPU)
	t.USDLLM = t.USDLLM.Add(o.USDLLM)
	t.LLMCalls = t.LLMCalls.Add(o.LLMCalls)
	t.LLMTokens = t.LLMTokens.Add(o.LLMTokens)
	t.WallHours = t.WallHours.Add(o.WallHours)
	t.uncapped.runs = t.uncapped.runs.Add(o.uncapped.runs)
	t.uncapped.gpuHours = t.uncapped.gpuHours.Add(o.uncapped.gpuHours)
	t.uncapped.usd = t.uncapped.usd.Add(o.uncapped.usd)
	t.uncapped.wall = t.uncapped.wall.Add(o.uncapped.wall)
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
	// CriticUpdates are the critic trainings' updates, by the block's name
	// and sft or grpo.
	CriticUpdates map[string]*Updates `json:"critic_updates,omitempty"`
}

// Variant is one variant's estimate.
type Variant struct {
	Name string `json:"name"`
	// Hash is the hash of the plan as it applies to this variant
	// (plan.VariantHash).
	Hash      string         `json:"hash,omitempty"`
	Overrides map[string]any `json:"overrides,omitempty"`
	Breakdown
	Phases []*Phase `json:"phases"`
	// Assumptions are the figures this variant's estimate takes as given.
	Assumptions []*Assumption `json:"assumptions,omitempty"`
	// DataCost is what the evaluated arms' data cost, when an in-context
	// arm is evaluated (datacost.go).
	DataCost []*DataCost `json:"data_cost,omitempty"`
}

// Assumption is a figure the estimate takes as given, and where it comes
// from: a file:line:col of the spec, "preset NAME", "default", or "run ID"
// when a run's measurements replaced the spec's figure.
type Assumption struct {
	Name    string     `json:"name"`
	Value   plan.Count `json:"value"`
	From    string     `json:"from"`
	Affects string     `json:"affects"`
	// Note says why a run's measurement did not replace the figure.
	Note string `json:"note,omitempty"`
}

// Prediction is one figure of a run beside what an estimate learned from
// that run's own measurements predicts for it (estimate --from-run).
// Error is (predicted - actual) / actual; 0 when both are 0.
type Prediction struct {
	Figure    string  `json:"figure"`
	Predicted float64 `json:"predicted"`
	Actual    float64 `json:"actual"`
	Error     float64 `json:"error"`
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
	// DataCost is the only variant's; with a sweep each variant has its own.
	DataCost []*DataCost `json:"data_cost,omitempty"`
	Variants []*Variant  `json:"variants,omitempty"`
	// FromRun is the run whose measurements replaced the assumptions, and
	// Predicted that run's figures beside what this estimate predicts for
	// it (empty when the run's plan is not of this spec's structure).
	FromRun   string        `json:"from_run,omitempty"`
	Predicted []*Prediction `json:"predicted_vs_actual,omitempty"`
}

func newBreakdown() Breakdown {
	return Breakdown{GPUHoursByType: map[string]plan.Count{}, Roles: map[string]*Role{}, Loops: map[string]*Loop{}, Environments: map[string]*Environment{}}
}

// Estimate prices every variant of p.
func Estimate(p *plan.Plan) *Report {
	r := &Report{Plan: p.Name, Hash: p.Hash, Breakdown: newBreakdown()}
	for _, v := range p.Variants {
		ve := estimateVariant(v)
		ve.Hash = p.VariantHash(v.Name)
		r.Variants = append(r.Variants, ve)
		r.Breakdown.add(&ve.Breakdown)
	}
	if len(r.Variants) == 1 {
		r.Phases = r.Variants[0].Phases
		r.Assumptions = r.Variants[0].Assumptions
		r.DataCost = r.Variants[0].DataCost
		r.Variants = nil
	}
	return r
}

func (b *Breakdown) add(o *Breakdown) {
	b.Totals.add(&o.Totals)
	b.addCriticUpdates(o)
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

// variantEstimate is the state of estimating one variant: the plan's
// environments, roles and loops by name, and the estimate being summed.
type variantEstimate struct {
	v     *plan.Variant
	out   *Variant
	envs  map[string]*plan.Environment
	roles map[string]*plan.Role
	loops map[string]*plan.Loop
	// policyData and seedData are the data shares of the phases before
	// the evaluation and of the seed records (datacost.go); evaluated is
	// set once the evaluation is priced, and eval is its body.
	policyData, seedData dataShare
	evaluated            bool
	eval                 *plan.Evaluation
}

func estimateVariant(v *plan.Variant) *Variant {
	out := &Variant{Name: v.Name, Overrides: v.Overrides, Breakdown: newBreakdown()}
	for _, a := range v.Assumptions {
		out.Assumptions = append(out.Assumptions, assumption(a))
	}
	ve := &variantEstimate{v: v, out: out, envs: map[string]*plan.Environment{}, roles: map[string]*plan.Role{}, loops: map[string]*plan.Loop{}}
	for _, e := range v.Envs {
		ve.envs[e.Name] = e
		out.Environments[e.Name] = &Environment{}
	}
	for _, r := range v.Roles {
		ve.roles[r.Name] = r
		out.Roles[r.Name] = &Role{}
	}
	for _, l := range v.Loops {
		out.Loops[l.Name] = &Loop{Steps: l.Steps}
		ve.loops[l.Name] = l
	}
	t := &out.Totals
	for _, ph := range v.Phases {
		pe := ve.phase(ph)
		t.WallHours = t.WallHours.Add(pe.WallHours)
		out.Phases = append(out.Phases, pe)
		if ph.RL != nil && ph.RL.Calibration != nil {
			for _, round := range ph.RL.Calibration.Rounds {
				pe := ve.round(ph.RL, round)
				t.WallHours = t.WallHours.Add(pe.WallHours)
				out.Phases = append(out.Phases, pe)
			}
		}
	}
	t.USD = t.USDGPU.Add(t.USDLLM)
	out.DataCost = ve.dataCosts()
	// The runtime reserves every real run against budget.real_runs (and
	// its GPU-hours and dollars against theirs), and holds every LLM call's
	// dollars before making it, so no run of this plan goes past a cap: a
	// high figure is the cap at most. The uncapped figures stay for
	// CheckCaps, which warns that such a run may stop at the cap before the
	// plan is done.
	t.uncapped = capped{runs: t.RealRuns, gpuHours: t.GPUHours, usd: t.USD, wall: t.WallHours}
	capToBudget(out, v.Budget)
	return out
}

// assumption reports a plan assumption with where its figure came from.
func assumption(a *plan.Assumption) *Assumption {
	from := a.From
	if from == "" && a.Source.Valid() {
		from = fmt.Sprintf("%s:%d:%d", a.Source.Filename, a.Source.Start.Line, a.Source.Start.Column)
	} else if from == "" {
		from = "default"
	}
	return &Assumption{Name: a.Name, Value: a.Value, From: from, Affects: a.Affects, Note: a.Note}
}

// RoundKind is the kind of the estimate's phase for a calibration round,
// which runs inside its RL phase and is estimated apart from it.
const RoundKind = "calibration"

// phase estimates one phase, by its body, and adds it to the variant's
// figures.
func (ve *variantEstimate) phase(ph *plan.Phase) *Phase {
	pe := &Phase{Name: ph.Name, Kind: ph.Kind}
	waves := batches(ve.v, ph)
	ve.realRuns(ph.Calls, pe, waves)
	ve.llmCalls(ph.Calls, pe, waves)
	ve.noteData(ph.Kind, ph.Calls, pe)
	if ph.Evaluation != nil {
		ve.evaluated, ve.eval = true, ph.Evaluation
	}
	switch {
	case ph.RL != nil:
		if l := ve.loops[ph.RL.Loop]; l != nil && l.Update != nil {
			ve.updates(l, pe)
		}
	case ph.CriticTraining != nil:
		ve.criticTraining(pe, ph.CriticTraining)
	case ph.Evolution != nil && ph.Evolution.Continual != nil:
		// Priced like a critic training's; its calls are the phase's.
		ve.criticTraining(pe, ph.Evolution.Continual.Training)
	}
	if l := ve.out.Loops[ph.Loop()]; l != nil {
		l.Candidates = l.Candidates.Add(ph.Calls.Candidates)
		l.RealRuns = l.RealRuns.Add(sumCounts(ph.Calls.RealRuns))
	}
	return pe
}

// round estimates a calibration round of RL phase body rl. It reruns
// proposals the loop already scored, so it adds real runs to the loop and
// no candidates.
func (ve *variantEstimate) round(rl *plan.RLBody, round *plan.CalibrationRound) *Phase {
	pe := &Phase{Name: round.Name, Kind: RoundKind}
	ve.realRuns(round.Calls, pe, 1)
	ve.llmCalls(round.Calls, pe, 1)
	ve.noteData(RoundKind, round.Calls, pe)
	if l := ve.out.Loops[rl.Loop]; l != nil {
		l.RealRuns = l.RealRuns.Add(sumCounts(round.Calls.RealRuns))
	}
	return pe
}

// realRuns adds a phase's real runs, environment by environment.
func (ve *variantEstimate) realRuns(calls plan.Calls, pe *Phase, waves float64) {
	out, t := ve.out, &ve.out.Totals
	for _, name := range sortedKeys(calls.RealRuns) {
		n := calls.RealRuns[name]
		e := ve.envs[name]
		if e == nil {
			continue // the compiler never emits this; a hand-edited plan might
		}
		gh := n.Mul(e.GPUHours)
		usd := gh.Scale(ve.v.Prices[e.GPU])
		ee := out.Environments[name]
		ee.RealRuns, ee.GPUHours, ee.USD = ee.RealRuns.Add(n), ee.GPUHours.Add(gh), ee.USD.Add(usd)
		if e.GPUs > 0 { // a CPU environment (gpus = 0) spends no GPU type's hours
			out.GPUHoursByType[e.GPU] = out.GPUHoursByType[e.GPU].Add(gh)
		}
		t.RealRuns, t.GPUHours, t.USDGPU = t.RealRuns.Add(n), t.GPUHours.Add(gh), t.USDGPU.Add(usd)
		pe.RealRuns, pe.USD = pe.RealRuns.Add(n), pe.USD.Add(usd)
		pe.WallHours = pe.WallHours.Add(wall(n, e.Hours, concurrency(ve.v.Executor, e), waves))
	}
}

// llmCalls adds a phase's LLM calls, role by role.
func (ve *variantEstimate) llmCalls(calls plan.Calls, pe *Phase, waves float64) {
	out, t := ve.out, &ve.out.Totals
	for _, name := range sortedKeys(calls.LLM) {
		n := calls.LLM[name]
		r := ve.roles[name]
		if r == nil {
			continue
		}
		if a := r.Answer; a != nil && a.Reasks > 0 {
			// At the high end every answer is asked again as often as
			// the role allows: each ask is one more request, billed.
			n.High *= float64(1 + a.Reasks)
		}
		in, outTok := n.Mul(r.TokensIn), n.Mul(r.TokensOut)
		usd := in.Scale(r.PriceIn / 1e6).Add(outTok.Scale(r.PriceOut / 1e6))
		re := out.Roles[name]
		re.Calls, re.TokensIn, re.TokensOut, re.USD = re.Calls.Add(n), re.TokensIn.Add(in), re.TokensOut.Add(outTok), re.USD.Add(usd)
		t.LLMCalls, t.LLMTokens, t.USDLLM = t.LLMCalls.Add(n), t.LLMTokens.Add(in).Add(outTok), t.USDLLM.Add(usd)
		pe.LLMCalls, pe.USD = pe.LLMCalls.Add(n), pe.USD.Add(usd)
		pe.WallHours = pe.WallHours.Add(wall(n, plan.Exact(r.Seconds/3600), float64(max(r.Concurrency, 1)), waves))
	}
}

// updates adds an RL loop's policy updates, which run in its phase one
// after another between steps, each reserved like a real run.
func (ve *variantEstimate) updates(l *plan.Loop, pe *Phase) {
	out, t := ve.out, &ve.out.Totals
	u := l.Update
	gh := u.Updates.Scale(u.GPUHours)
	usd := u.Updates.Scale(u.USD)
	out.Loops[l.Name].Updates = &Updates{Count: u.Updates, GPUHours: gh, USD: usd}
	out.GPUHoursByType[u.GPU] = out.GPUHoursByType[u.GPU].Add(gh)
	t.GPUHours, t.USDGPU = t.GPUHours.Add(gh), t.USDGPU.Add(usd)
	pe.USD = pe.USD.Add(usd)
	pe.WallHours = pe.WallHours.Add(u.Updates.Scale(u.Hours))
}

// capToBudget caps every high figure at the budget's caps.
func capToBudget(out *Variant, b plan.Budget) {
	t := &out.Totals
	if c := float64(b.RealRuns); c > 0 {
		t.RealRuns.High = math.Min(t.RealRuns.High, c)
		t.RealRuns.Expected = math.Min(t.RealRuns.Expected, c)
		for _, e := range out.Environments {
			e.RealRuns.High = math.Min(e.RealRuns.High, c)
		}
	}
	if c := b.GPUHours; c > 0 {
		t.GPUHours = t.GPUHours.CapHigh(c)
		for _, e := range out.Environments {
			e.GPUHours = e.GPUHours.CapHigh(c)
		}
		for k, g := range out.GPUHoursByType {
			out.GPUHoursByType[k] = g.CapHigh(c)
		}
	}
	if c := b.USD; c > 0 {
		t.USD, t.USDGPU, t.USDLLM = t.USD.CapHigh(c), t.USDGPU.CapHigh(c), t.USDLLM.CapHigh(c)
		for _, e := range out.Environments {
			e.USD = e.USD.CapHigh(c)
		}
		for _, r := range out.Roles {
			r.USD = r.USD.CapHigh(c)
		}
		for _, p := range out.Phases {
			p.USD = p.USD.CapHigh(c)
		}
	}
}

// wall is the wall-clock hours of n tasks of per hours each, conc at a
// time, started in at most waves groups (refreshes, island-rounds, or the
// whole phase) that each wait for the last of theirs. The expected and low
// figures assume full use of conc; the high one the most rounds of conc
// that n whole tasks in waves groups can take: when every group but one
// holds a single task, floor((n - waves) / conc) + waves.
func wall(n, per plan.Count, conc float64, waves float64) plan.Count {
	w := n.Mul(per).Scale(1 / conc)
	if !w.Bounded() || w.IsZero() {
		return w
	}
	tasks := math.Ceil(n.High - 1e-9)
	rounds := tasks
	if tasks > waves {
		rounds = math.Floor((tasks-waves)/conc) + waves
	}
	w.High = math.Max(w.High, rounds*per.High)
	return w
}

// batches is the most groups a phase starts its calls and runs in, each
// group waiting for its last: a refresh of an RL loop, an island-round of
// an evolution loop, or the whole phase.
func batches(v *plan.Variant, ph *plan.Phase) float64 {
	switch {
	case ph.RL != nil:
		return math.Max(ph.RL.Refreshes.High, 1)
	case ph.Evolution != nil:
		for _, l := range v.Loops {
			if l.Name != ph.Evolution.Loop {
				continue
			}
			tasks := 0
			for _, e := range v.Envs {
				for _, t := range e.Tasks {
					if t.Split == l.Split {
						tasks++
					}
				}
			}
			return float64(max(tasks*l.Islands*l.Rounds, 1))
		}
	}
	return 1
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
