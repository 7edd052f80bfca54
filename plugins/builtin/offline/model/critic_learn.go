package model

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// The offline critic learns: its trained parameters are a bias per
// mechanism direction, added to the relative change z it estimates for a
// child of that mechanism (critic.go), so a critic that misjudges one kind
// of change is corrected by the labelled pairs of that kind.
//
// SFT moves each mechanism's bias toward the mean residual of its samples,
// the target z of the kept critique's verdict less the critic's own
// estimate, by sftStep per epoch. GRPO moves it by grpoStep times the mean
// of advantage x direction of the sampled verdict (+1 improve, 0 tie, -1
// lose): verdicts that scored above their group push the bias their way.
// Both are deterministic; the spec's learning rate is for a real training
// command and does not scale them.
const (
	criticStateVersion = 1
	sftStep            = 0.5
	grpoStep           = 0.5
	maxBias            = 5
)

// CriticState is the offline critic's trained parameters, the State of its
// role after a critic training's update.
type CriticState struct {
	Critic  int                `json:"critic"`
	Bias    map[string]float64 `json:"bias"`
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
	for k, b := range c.Bias {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("offline critic: bias of %q is %v", k, b)
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

// criticZ is the critic's estimate for a pair before noise, bias included.
func (c *CriticState) criticZ(req *payload.CritiqueRequest) float64 {
	child, _ := estimate(req.Task, req.Env, req.Records, req.Child)
	parent, _ := estimate(req.Task, req.Env, req.Records, req.Parent)
	return (child-parent)/taskScale(req.Records, req.Task) + c.Bias[req.Child.Mechanism]
}

// UpdateCritic applies one SFT or GRPO update (req.Algorithm) on the
// samples: each sample's State is the critique request it answers and its
// Completion the verdict's answer (the label first, as Complete writes
// it, or the answer's JSON).
func (c *CriticState) UpdateCritic(req *plugins.UpdateRequest) (*CriticState, map[string]float64, error) {
	sum, n := map[string]float64{}, map[string]float64{}
	for i, s := range req.Samples {
		var in payload.CritiqueRequest
		if err := payload.Decode([]byte(s.State), &in); err != nil {
			return nil, nil, fmt.Errorf("offline critic: sample %d: %w", i, err)
		}
		label := sampleLabel(s.Completion)
		if label == "" {
			return nil, nil, fmt.Errorf("offline critic: sample %d: no verdict in %q", i, s.Completion)
		}
		m := in.Child.Mechanism
		switch req.Algorithm {
		case payload.AlgCriticSFT:
			sum[m] += targetZ(label) - c.criticZ(&in)
		case payload.AlgCriticGRPO:
			sum[m] += s.Advantage * direction(label)
		default:
			return nil, nil, fmt.Errorf("offline critic: algorithm %q is not %s or %s", req.Algorithm, payload.AlgCriticSFT, payload.AlgCriticGRPO)
		}
		n[m]++
	}
	next := &CriticState{Critic: criticStateVersion, Bias: map[string]float64{}, Updates: c.Updates + 1}
	for k, b := range c.Bias {
		next.Bias[k] = b
	}
	keys := make([]string, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	moved := 0.0
	for _, k := range keys {
		mean := sum[k] / n[k]
		step := grpoStep * mean
		if req.Algorithm == payload.AlgCriticSFT {
			// Each epoch closes sftStep of the remaining residual.
			step = (1 - math.Pow(1-sftStep, float64(max(req.Epochs, 1)))) * mean
		}
		next.Bias[k] = math.Max(-maxBias, math.Min(maxBias, next.Bias[k]+step))
		moved += math.Abs(step)
	}
	return next, map[string]float64{"mechanisms": float64(len(keys)), "bias_moved": moved}, nil
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
