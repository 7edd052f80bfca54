package model

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Policy is the proposer's trainable state: weights on features of an
// edit. It is what Update returns and what later requests carry in State.
type Policy struct {
	Version int `json:"version"`
	// Steps counts the updates applied.
	Steps int `json:"steps"`
	// Weights maps a feature to its weight; absent features weigh 0.
	Weights map[string]float64 `json:"weights"`
}

const policyVersion = 1

// LoadPolicy decodes a policy checkpoint; nil or empty is the initial policy.
func LoadPolicy(state []byte) (*Policy, error) {
	p := &Policy{Version: policyVersion, Weights: map[string]float64{}}
	if len(state) == 0 {
		return p, nil
	}
	if err := payload.Decode(state, p); err != nil {
		return nil, fmt.Errorf("offline proposer: bad policy state: %w", err)
	}
	if p.Version != policyVersion {
		return nil, fmt.Errorf("offline proposer: policy state version %d, want %d", p.Version, policyVersion)
	}
	if p.Weights == nil {
		p.Weights = map[string]float64{}
	}
	return p, nil
}

// Bytes encodes the policy; map keys are sorted, so equal policies give
// equal bytes.
func (p *Policy) Bytes() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // only floats and strings: cannot fail unless NaN
	}
	return b
}

// action is one candidate edit: set Knob to Value.
type action struct {
	Knob, Value, Mechanism string
	// prior is the untrained model's preference: small moves from the
	// current value are likelier than big ones, plus a fixed idiosyncrasy.
	prior float64
}

// features of an action in a task: a global preference for the edit, a
// task-specific one, and one for its mechanism direction.
func (a action) features(task string) [3]string {
	return [3]string{
		"edit:" + a.Knob + "=" + a.Value,
		"task:" + task + ":" + a.Knob + "=" + a.Value,
		"mech:" + a.Mechanism,
	}
}

func (p *Policy) score(a action, task string) float64 {
	s := a.prior
	for _, f := range a.features(task) {
		s += p.Weights[f]
	}
	return s
}

// currentEdits is the setup the proposals build on.
func currentEdits(parent *plugins.Proposal) map[string]string {
	cur := map[string]string{}
	if parent != nil {
		for k, v := range parent.Edits {
			cur[k] = v
		}
	}
	return cur
}

// inspirationBonus is how much an edit that a better inspiration made
// (one with a positive gain) adds to its prior: a proposer shown good
// programs borrows from them, as OpenEvolve's prompt intends.
const inspirationBonus = 0.6

// inspired counts, per edit "knob=value", the inspirations with a positive
// gain that make it.
func inspired(req *payload.ProposeRequest) map[string]int {
	out := map[string]int{}
	for _, r := range req.Inspirations {
		if r.Infeasible || r.Gain <= 0 {
			continue
		}
		for k, v := range r.Proposal.Edits {
			out[k+"="+v]++
		}
	}
	return out
}

// iclWeight is how far the records in a prompt move the model's
// preference for an edit: the offline model's in-context learning.
const iclWeight = 1.5

// iclBonus reads the records in the prompt: for each edit ("knob=value"),
// the relevance-weighted mean of whether the records that made it gained
// (+1) or lost (-1; an infeasible record loses), shrunk towards 0 by one
// record's weight, times iclWeight. A record of the same task weighs 1, of
// the same environment 0.5, of another 0.25.
func iclBonus(req *payload.ProposeRequest) map[string]float64 {
	if len(req.Records) == 0 {
		return nil
	}
	sum, wt := map[string]float64{}, map[string]float64{}
	for _, r := range req.Records {
		t := 0.25
		switch {
		case r.Task == req.Task && r.Env == req.Env:
			t = 1
		case r.Env == req.Env:
			t = 0.5
		}
		sign := 0.0
		switch {
		case r.Infeasible || r.Gain < 0:
			sign = -1
		case r.Gain > 0:
			sign = 1
		}
		for k, v := range r.Proposal.Edits {
			sum[k+"="+v] += t * sign
			wt[k+"="+v] += t
		}
	}
	out := make(map[string]float64, len(sum))
	for e, s := range sum {
		out[e] = iclWeight * s / (wt[e] + 1)
	}
	return out
}

// candidates lists every edit that changes the current setup, in a fixed
// order (knob order, then value order); in source mode, every change of a
// numeric setting of the program shown (sourceCandidates). Records in the
// prompt shift each edit's prior by iclBonus.
func candidates(req *payload.ProposeRequest) []action {
	icl := iclBonus(req)
	borrow := inspired(req)
	if req.Source != nil {
		return sourceCandidates(req, icl, borrow)
	}
	cur := currentEdits(req.Parent)
	var out []action
	for _, k := range req.Knobs {
		now, ok := cur[k.Name]
		if !ok {
			now = k.Default
		}
		at := -1
		for i, v := range k.Values {
			if v == now {
				at = i
			}
		}
		for i, v := range k.Values {
			if v == now {
				continue
			}
			dist := 1.0
			if at >= 0 {
				dist = math.Abs(float64(i - at))
			}
			out = append(out, action{
				Knob: k.Name, Value: v, Mechanism: k.Mechanism,
				prior: -0.4*(dist-1) + 0.3*unitHash("prior:"+k.Name+"="+v) + inspirationBonus*float64(borrow[k.Name+"="+v]) + icl[k.Name+"="+v],
			})
		}
	}
	return out
}

// sourceCandidates are the edits of a program the proposer is shown (the
// editable files of the parent's commit): each named numeric setting
// found there (settingsOf) set a quarter, half, twice or four times its
// value, in file and line order, its mechanism read off its name
// (mechanismOf). Small moves are likelier, as for knobs; a setting
// named twice is proposed once.
func sourceCandidates(req *payload.ProposeRequest, icl map[string]float64, borrow map[string]int) []action {
	var out []action
	seen := map[string]bool{}
	for _, s := range settingsOf(req.Source) {
		if seen[s.name] {
			continue
		}
		seen[s.name] = true
		mech := mechanismOf(s.name)
		values, dist := ladder(s.value)
		for i, v := range values {
			e := s.name + "=" + v
			out = append(out, action{Knob: s.name, Value: v, Mechanism: mech,
				prior: -0.4*(dist[i]-1) + 0.3*unitHash("prior:"+e) + inspirationBonus*float64(borrow[e]) + icl[e]})
		}
	}
	return out
}

// probs is the softmax of scores / temperature; temperature <= 0 is greedy.
func (p *Policy) probs(acts []action, task string, temperature float64) []float64 {
	ps := make([]float64, len(acts))
	if len(acts) == 0 {
		return ps
	}
	if temperature <= 0 {
		best := 0
		for i, a := range acts {
			if p.score(a, task) > p.score(acts[best], task) {
				best = i
			}
		}
		ps[best] = 1
		return ps
	}
	m := math.Inf(-1)
	for i, a := range acts {
		ps[i] = p.score(a, task) / temperature
		m = math.Max(m, ps[i])
	}
	sum := 0.0
	for i := range ps {
		ps[i] = math.Exp(ps[i] - m)
		sum += ps[i]
	}
	for i := range ps {
		ps[i] /= sum
	}
	return ps
}

func sample(r *rng, ps []float64) int {
	u := r.float()
	for i, p := range ps {
		u -= p
		if u < 0 {
			return i
		}
	}
	return len(ps) - 1
}

// Propose samples N proposals, each the parent's setup plus one edit: of
// a knob, or in source mode of a setting of the program shown, which the
// idea's text names with its new value ("defaultLR to 0.06").
func (p *Policy) Propose(req *payload.ProposeRequest, temperature float64, seed int64) (*payload.ProposeResponse, error) {
	if req.N < 1 {
		return nil, fmt.Errorf("offline proposer: n must be at least 1, got %d", req.N)
	}
	acts := candidates(req)
	if len(acts) == 0 && req.Source != nil {
		return nil, fmt.Errorf("offline proposer: no numeric setting to change in the %d editable files shown (%s)", len(req.Source.Files), strings.Join(req.Source.Editable, ", "))
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("offline proposer: no knob can change (knobs: %d)", len(req.Knobs))
	}
	ps := p.probs(acts, req.Task, temperature)
	r := newRNG(seed, "propose:"+req.State)
	resp := &payload.ProposeResponse{}
	for i := 0; i < req.N; i++ {
		a := acts[sample(r, ps)]
		edits := currentEdits(req.Parent)
		edits[a.Knob] = a.Value
		resp.Proposals = append(resp.Proposals, plugins.Proposal{
			ID:        fmt.Sprintf("%s#%d", req.State, i),
			Text:      describeEdit(a.Knob, a.Value, a.Mechanism, r),
			Mechanism: a.Mechanism,
			Edits:     edits,
		})
	}
	return resp, nil
}

var pitches = []string{
	"Try setting %s to %s; this should help the %s.",
	"I propose %s = %s, a change to the %s.",
	"Change %s to %s to improve the %s.",
}

func describeEdit(knob, value, mech string, r *rng) string {
	return fmt.Sprintf(pitches[r.next()%uint64(len(pitches))], knob, value, mech)
}

// actionOf finds which candidate a proposal took: the one edit in which it
// differs from the parent.
func actionOf(acts []action, req *payload.ProposeRequest, prop plugins.Proposal) (int, error) {
	cur := currentEdits(req.Parent)
	var diff []string
	for k, v := range prop.Edits {
		if cur[k] != v {
			diff = append(diff, k)
		}
	}
	if len(diff) != 1 {
		return -1, fmt.Errorf("proposal %q changes %d knobs (%s), want 1", prop.ID, len(diff), strings.Join(diff, ", "))
	}
	for i, a := range acts {
		if a.Knob == diff[0] && a.Value == prop.Edits[diff[0]] {
			return i, nil
		}
	}
	return -1, fmt.Errorf("proposal %q: edit %s=%s is not a candidate", prop.ID, diff[0], prop.Edits[diff[0]])
}

// Update is one policy-gradient update of the clipped surrogate objective
// that GRPO and DAPO share, with the request's hyperparameters:
//
//   - for Epochs passes over the samples, each sample pushes log pi(a|s) (at
//     temperature 1) by its advantage times the ratio pi/pi_old, where
//     pi_old is the policy the request carries;
//   - a sample whose ratio is past 1 + ClipHigh (advantage > 0) or below
//     1 - ClipLow (advantage < 0) stops pushing (PPO clipping; DAPO's
//     clip-higher is ClipHigh > ClipLow);
//   - KLCoef pulls toward the reference policy (all weights 0, the
//     untrained model) by GRPO's estimator of KL(pi || pi_ref), whose
//     gradient at the sampled proposal is (1 - pi_ref/pi) grad log pi;
//   - samples weigh 1/n each, or, with TokenLevel, their share of the
//     batch's tokens (DAPO's token-level loss).
//
// With the zero hyperparameters it is one plain policy-gradient step. Each
// sample's State must be the ProposeRequest payload the proposal was sampled
// from, since the gradient needs every alternative the policy weighed.
func (p *Policy) Update(req *plugins.UpdateRequest) (*Policy, map[string]float64, error) {
	if err := checkUpdate(req); err != nil {
		return nil, nil, err
	}
	samples, entropy, err := p.updateSamples(req)
	if err != nil {
		return nil, nil, err
	}
	next := &Policy{Version: policyVersion, Steps: p.Steps + 1, Weights: map[string]float64{}}
	for f, w := range p.Weights {
		next.Weights[f] = w
	}
	epochs := max(req.Epochs, 1)
	clipped, kl, norm := 0, 0.0, 0.0
	for e := 0; e < epochs; e++ {
		var c int
		c, kl, norm = next.updateEpoch(req, samples, e == epochs-1)
		clipped += c
	}
	stats := map[string]float64{
		"entropy":       entropy,
		"grad_norm":     math.Sqrt(norm),
		"step":          float64(next.Steps),
		"clip_fraction": float64(clipped) / float64(epochs*len(samples)),
	}
	if req.KLCoef > 0 {
		stats["kl"] = kl
	}
	return next, stats, nil
}

// checkUpdate refuses an update request Update cannot carry out.
func checkUpdate(req *plugins.UpdateRequest) error {
	if len(req.Samples) == 0 {
		return fmt.Errorf("offline proposer: update with no samples")
	}
	if !(req.LearningRate > 0) {
		return fmt.Errorf("offline proposer: learning rate must be positive, got %v", req.LearningRate)
	}
	switch req.Algorithm {
	case "", "grpo", "dapo":
	default:
		return fmt.Errorf("offline proposer: unknown algorithm %q (want grpo or dapo)", req.Algorithm)
	}
	if req.ClipLow < 0 || req.ClipLow >= 1 || req.ClipHigh < 0 || req.KLCoef < 0 || req.Epochs < 0 {
		return fmt.Errorf("offline proposer: bad hyperparameters: clip_low %v must lie in [0, 1), clip_high %v, kl_coef %v and epochs %d must not be negative",
			req.ClipLow, req.ClipHigh, req.KLCoef, req.Epochs)
	}
	return nil
}

// updateSample is one sample of an update, decoded against the policy that
// sampled it.
type updateSample struct {
	task   string
	acts   []action
	k      int
	adv    float64
	weight float64
	old    float64 // pi_old of the sampled proposal
	ref    float64 // pi_ref of the sampled proposal
}

// updateSamples decodes the request's samples and weighs them; entropy is
// the mean entropy of p over the samples' states.
func (p *Policy) updateSamples(req *plugins.UpdateRequest) ([]updateSample, float64, error) {
	ref := &Policy{Weights: map[string]float64{}}
	samples := make([]updateSample, len(req.Samples))
	entropy, tokens := 0.0, 0.0
	for i, s := range req.Samples {
		var preq payload.ProposeRequest
		if err := payload.Decode([]byte(s.State), &preq); err != nil {
			return nil, 0, fmt.Errorf("offline proposer: sample %d: State must be the ProposeRequest payload: %w", i, err)
		}
		acts := candidates(&preq)
		k, err := actionOf(acts, &preq, s.Proposal)
		if err != nil {
			return nil, 0, fmt.Errorf("offline proposer: sample %d: %w", i, err)
		}
		ps := p.probs(acts, preq.Task, 1)
		for _, q := range ps {
			if q > 0 {
				entropy -= q * math.Log(q) / float64(len(req.Samples))
			}
		}
		w := 1.0
		if req.TokenLevel {
			w = float64(max(payload.Tokens(s.Proposal.Text), 1))
		}
		tokens += w
		samples[i] = updateSample{task: preq.Task, acts: acts, k: k, adv: s.Advantage, weight: w, old: ps[k], ref: ref.probs(acts, preq.Task, 1)[k]}
	}
	for i := range samples {
		samples[i].weight /= tokens
	}
	return samples, entropy, nil
}

// updateEpoch is one pass over the samples: it steps p's weights and
// returns the samples it clipped, the KL estimate (only when last) and the
// squared norm of the gradient.
func (p *Policy) updateEpoch(req *plugins.UpdateRequest, samples []updateSample, last bool) (clipped int, kl, norm float64) {
	grad := map[string]float64{}
	for _, s := range samples {
		ps := p.probs(s.acts, s.task, 1)
		pk := ps[s.k]
		ratio := pk / s.old
		// c multiplies grad log pi(a|s): the clipped surrogate's term,
		// then the KL penalty's.
		c := 0.0
		switch {
		case s.adv > 0 && req.ClipHigh > 0 && ratio > 1+req.ClipHigh,
			s.adv < 0 && req.ClipLow > 0 && ratio < 1-req.ClipLow:
			clipped++
		default:
			c = s.adv * ratio
		}
		if req.KLCoef > 0 {
			c -= req.KLCoef * (1 - s.ref/pk)
			if last {
				kl += (s.ref/pk - math.Log(s.ref/pk) - 1) / float64(len(samples))
			}
		}
		c *= s.weight
		if c != 0 {
			addGrad(grad, s, ps, c)
		}
	}
	keys := make([]string, 0, len(grad))
	for f := range grad {
		keys = append(keys, f)
	}
	sort.Strings(keys) // a fixed summation order for the norm
	for _, f := range keys {
		norm += grad[f] * grad[f]
		p.Weights[f] += req.LearningRate * grad[f]
	}
	return clipped, kl, norm
}

// addGrad adds c times the gradient of log pi(a|s) at the sampled action.
func addGrad(grad map[string]float64, s updateSample, ps []float64, c float64) {
	for j, a := range s.acts {
		ind := 0.0
		if j == s.k {
			ind = 1
		}
		if d := c * (ind - ps[j]); d != 0 {
			for _, f := range a.features(s.task) {
				grad[f] += d
			}
		}
	}
}
