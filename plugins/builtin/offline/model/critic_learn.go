package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// The offline critic learns: its trained parameters are a bias per
// mechanism direction and a weight per feature of the change (critic.go
// adds both to the relative change z it estimates). The features are what
// the change does, never which task or pair it is: for each knob the child
// sets otherwise than its parent, the setting it makes (set:KNOB=VALUE)
// and, where both values are numbers, the way it moves the knob
// (move:KNOB:up or :down). So what is learnt on one task's pairs carries
// to another task's changes of the same kind.
//
// A sample's parameters are its mechanism's bias and its features'
// weights, n of them. SFT makes Epochs passes; each moves every parameter
// by sftStep times the mean, over the samples that have it, of the
// sample's residual over n (the target z of the kept critique's verdict
// less the critic's estimate), so that one sample's parameters together
// close about sftStep of its residual a pass. GRPO moves each parameter
// by grpoStep times the mean of advantage x direction of the sampled
// verdict (+1 improve, 0 tie, -1 lose) over n: verdicts that scored above
// their group push the parameters their way. Both are deterministic; the
// spec's learning rate is for a real training command and does not scale
// them.
const (
	criticStateVersion = 1
	sftStep            = 0.5
	grpoStep           = 0.5
	maxBias            = 5
)

// CriticState is the offline critic's trained parameters, the State of its
// role after a critic training's update.
type CriticState struct {
	Critic int                `json:"critic"`
	Bias   map[string]float64 `json:"bias"`
	// Weights are the features' of the change (changeFeatures).
	Weights map[string]float64 `json:"weights,omitempty"`
	Updates int                `json:"updates"`
}

// LoadCritic reads a critic's state; nil is the untrained critic.
func LoadCritic(state []byte) (*CriticState, error) {
	c := &CriticState{Critic: criticStateVersion, Bias: map[string]float64{}}
	if len(state) == 0 {
		return c, nil
	}
	if err := json.Unmarshal(state, c); err != nil {
		return nil, fmt.Errorf("offline critic: bad state: %w", err)
	}
	if c.Critic != criticStateVersion {
		return nil, fmt.Errorf("offline critic: state version %d, want %d", c.Critic, criticStateVersion)
	}
	if c.Bias == nil {
		c.Bias = map[string]float64{}
	}
	if c.Weights == nil {
		c.Weights = map[string]float64{}
	}
	for _, m := range []map[string]float64{c.Bias, c.Weights} {
		for k, b := range m {
			if math.IsNaN(b) || math.IsInf(b, 0) {
				return nil, fmt.Errorf("offline critic: parameter of %q is %v", k, b)
			}
		}
	}
	return c, nil
}

// Bytes encodes the state; map keys are sorted, so equal states give
// equal bytes.
func (c *CriticState) Bytes() []byte {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err) // plain data
	}
	return b
}

// targetZ is the relative change a verdict stands for, on the critic's
// scale (the middle of its band in critic.go).
func targetZ(label string) float64 {
	switch label {
	case payload.LabelBigWin:
		return 2.5
	case payload.LabelMediumWin:
		return 1.5
	case payload.LabelSmallWin:
		return 0.6
	}
	switch critic.Direction(label) {
	case critic.Improve:
		return 1
	case critic.Lose:
		return -1
	}
	return 0
}

// direction is +1, 0 or -1 for an improve, tie or lose verdict.
func direction(label string) float64 {
	switch critic.Direction(label) {
	case critic.Improve:
		return 1
	case critic.Lose:
		return -1
	}
	return 0
}

// criticZ is the critic's estimate for a pair before noise, bias and
// weights included.
func (c *CriticState) criticZ(req *payload.CritiqueRequest) float64 {
	child, _ := estimate(req.Task, req.Env, req.Records, req.Child)
	parent, _ := estimate(req.Task, req.Env, req.Records, req.Parent)
	z := (child-parent)/taskScale(req.Records, req.Task) + c.Bias[req.Child.Mechanism]
	for _, f := range changeFeatures(req) {
		z += c.Weights[f]
	}
	return z
}

// changeFeatures are the features of the change from req's parent to its
// child, in knob order: for each knob the child sets otherwise, the
// setting, and its direction where both values are numbers.
func changeFeatures(req *payload.CritiqueRequest) []string {
	var fs []string
	for _, k := range slices.Sorted(maps.Keys(req.Child.Edits)) {
		v := req.Child.Edits[k]
		old, had := req.Parent.Edits[k]
		if had && old == v {
			continue
		}
		fs = append(fs, "set:"+k+"="+v)
		if !had {
			continue
		}
		a, errA := strconv.ParseFloat(old, 64)
		b, errB := strconv.ParseFloat(v, 64)
		switch {
		case errA != nil || errB != nil || a == b:
		case b > a:
			fs = append(fs, "move:"+k+":up")
		default:
			fs = append(fs, "move:"+k+":down")
		}
	}
	return fs
}

// learnSample is one sample of an update: its request, the parameters it
// touches and its verdict.
type learnSample struct {
	req   payload.CritiqueRequest
	feats []string
	label string
	adv   float64
}

// UpdateCritic applies one SFT or GRPO update (req.Algorithm) on the
// samples: each sample's State is the critique request it answers and its
// Completion the verdict's answer (the label first, as Complete writes
// it, or the answer's JSON).
func (c *CriticState) UpdateCritic(req *plugins.UpdateRequest) (*CriticState, map[string]float64, error) {
	if req.Algorithm != payload.AlgCriticSFT && req.Algorithm != payload.AlgCriticGRPO {
		return nil, nil, fmt.Errorf("offline critic: algorithm %q is not %s or %s", req.Algorithm, payload.AlgCriticSFT, payload.AlgCriticGRPO)
	}
	samples := make([]learnSample, len(req.Samples))
	for i, s := range req.Samples {
		ls := &samples[i]
		if err := payload.Decode([]byte(s.State), &ls.req); err != nil {
			return nil, nil, fmt.Errorf("offline critic: sample %d: %w", i, err)
		}
		if ls.label = sampleLabel(s.Completion); ls.label == "" {
			return nil, nil, fmt.Errorf("offline critic: sample %d: no verdict in %q", i, s.Completion)
		}
		ls.feats, ls.adv = changeFeatures(&ls.req), s.Advantage
	}
	next := &CriticState{Critic: criticStateVersion, Bias: maps.Clone(c.Bias), Weights: maps.Clone(c.Weights), Updates: c.Updates + 1}
	if next.Bias == nil {
		next.Bias = map[string]float64{}
	}
	if next.Weights == nil {
		next.Weights = map[string]float64{}
	}
	passes := 1
	if req.Algorithm == payload.AlgCriticSFT {
		passes = max(req.Epochs, 1)
	}
	moved, params := 0.0, 0
	for range passes {
		m, n := next.pass(req.Algorithm, samples)
		moved, params = moved+m, n
	}
	return next, map[string]float64{"mechanisms": float64(params), "bias_moved": moved}, nil
}

// pass is one pass of an update over the samples, made on c: each
// parameter moves by the step times the mean of its samples' signal
// over their parameter counts. It returns how far the parameters moved
// in all and how many there were.
func (c *CriticState) pass(alg string, samples []learnSample) (float64, int) {
	type acc struct{ sum, n float64 }
	bias, weights := map[string]*acc{}, map[string]*acc{}
	add := func(m map[string]*acc, k string, x float64) {
		a := m[k]
		if a == nil {
			a = &acc{}
			m[k] = a
		}
		a.sum += x
		a.n++
	}
	step := grpoStep
	if alg == payload.AlgCriticSFT {
		step = sftStep
	}
	for i := range samples {
		s := &samples[i]
		x := s.adv * direction(s.label)
		if alg == payload.AlgCriticSFT {
			x = targetZ(s.label) - c.criticZ(&s.req)
		}
		x /= float64(1 + len(s.feats))
		add(bias, s.req.Child.Mechanism, x)
		for _, f := range s.feats {
			add(weights, f, x)
		}
	}
	moved := 0.0
	for _, p := range []struct {
		to   map[string]float64
		from map[string]*acc
	}{{c.Bias, bias}, {c.Weights, weights}} {
		// Applied in key order: equal samples give equal bytes.
		for _, k := range slices.Sorted(maps.Keys(p.from)) {
			d := step * p.from[k].sum / p.from[k].n
			p.to[k] = math.Max(-maxBias, math.Min(maxBias, p.to[k]+d))
			moved += math.Abs(d)
		}
	}
	return moved, len(bias) + len(weights)
}

// sampleLabel is the verdict of a sample's completion: the answer's JSON
// label, or the label before the first colon of the offline text.
func sampleLabel(completion string) string {
	var r payload.CritiqueResponse
	if json.Unmarshal([]byte(completion), &r) == nil && r.Label != "" {
		return r.Label
	}
	for i := 0; i < len(completion); i++ {
		if completion[i] == ':' {
			completion = completion[:i]
			break
		}
	}
	if critic.Direction(completion) != "" {
		return completion
	}
	return ""
}
