package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// The papers' hyperparameters, as a plan's loop carries them.
func grpoReq() plugins.UpdateRequest {
	return plugins.UpdateRequest{Algorithm: "grpo", ClipLow: 0.2, ClipHigh: 0.2, KLCoef: 0.04, Epochs: 4}
}

func dapoReq() plugins.UpdateRequest {
	return plugins.UpdateRequest{Algorithm: "dapo", ClipLow: 0.2, ClipHigh: 0.28, TokenLevel: true, Epochs: 4}
}

// sampled is one proposal of the initial policy for request req with edit
// knob=value on top of req's parent, as the runtime would send it back.
func sampled(t *testing.T, req *payload.ProposeRequest, knob, value, text string, adv float64) plugins.Sample {
	t.Helper()
	b, err := payload.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	edits := currentEdits(req.Parent)
	edits[knob] = value
	return plugins.Sample{State: string(b), Proposal: plugins.Proposal{Text: text, Edits: edits}, Advantage: adv}
}

// probOf is pi(knob=value) in req's state.
func probOf(t *testing.T, state []byte, req *payload.ProposeRequest, knob, value string) float64 {
	t.Helper()
	pol, err := LoadPolicy(state)
	if err != nil {
		t.Fatal(err)
	}
	acts := candidates(req)
	ps := pol.probs(acts, req.Task, 1)
	for i, a := range acts {
		if a.Knob == knob && a.Value == value {
			return ps[i]
		}
	}
	t.Fatalf("%s=%s is not a candidate", knob, value)
	return 0
}

func update(t *testing.T, r plugins.UpdateRequest, state []byte, lr float64, samples ...plugins.Sample) []byte {
	t.Helper()
	r.LearningRate, r.State, r.Samples = lr, state, samples
	up, err := Model{}.Update(context.Background(), &r)
	if err != nil {
		t.Fatal(err)
	}
	return up.State
}

// learn runs a loop against a hidden reward with one algorithm and returns
// the final policy and the share of proposals that hit the reward.
func learn(t *testing.T, alg plugins.UpdateRequest) ([]byte, float64) {
	reward := func(p plugins.Proposal) float64 {
		if p.Edits["activation"] == "gelu" {
			return 1
		}
		return 0
	}
	var state []byte
	for step := 0; step < 30; step++ {
		pol, _ := LoadPolicy(state)
		req := proposeReq("t1", 8)
		out, _ := pol.Propose(req, 1, int64(step))
		mean := 0.0
		for _, p := range out.Proposals {
			mean += reward(p) / float64(len(out.Proposals))
		}
		b, _ := payload.Encode(req)
		var samples []plugins.Sample
		for _, p := range out.Proposals {
			samples = append(samples, plugins.Sample{State: string(b), Proposal: p, Advantage: reward(p) - mean})
		}
		state = update(t, alg, state, 2, samples...)
	}
	pol, _ := LoadPolicy(state)
	out, _ := pol.Propose(proposeReq("t1", 200), 1, 999)
	hit := 0.0
	for _, p := range out.Proposals {
		hit += reward(p) / 200
	}
	return state, hit
}

// GRPO and DAPO both learn the hidden reward, and from the same samples
// they reach different policies.
func TestGRPOAndDAPODiffer(t *testing.T) {
	g, gh := learn(t, grpoReq())
	d, dh := learn(t, dapoReq())
	t.Logf("share of gelu proposals: grpo %.2f, dapo %.2f", gh, dh)
	if gh < 0.5 || dh < 0.5 {
		t.Errorf("an algorithm did not learn: grpo %.2f, dapo %.2f", gh, dh)
	}
	if string(g) == string(d) {
		t.Error("grpo and dapo gave byte-identical policies")
	}
	// One update from the same samples already differs.
	req := proposeReq("t1", 1)
	s := []plugins.Sample{sampled(t, req, "activation", "gelu", "Try gelu.", 1), sampled(t, req, "width", "16", "Try a narrower model, width 16.", -1)}
	if string(update(t, grpoReq(), nil, 1, s...)) == string(update(t, dapoReq(), nil, 1, s...)) {
		t.Error("one grpo and one dapo update of the same samples gave the same policy")
	}
}

// Clip-higher: a low-probability proposal with a positive advantage grows
// until pi/pi_old passes 1 + ClipHigh, so DAPO's 0.28 lets it grow more
// than GRPO's 0.2, and no bound lets it grow most.
func TestClipHigherLetsRareGoodProposalGrow(t *testing.T) {
	req := proposeReq("t1", 1)
	acts := candidates(req)
	pol, _ := LoadPolicy(nil)
	ps := pol.probs(acts, req.Task, 1)
	low := 0
	for i := range ps {
		if ps[i] < ps[low] {
			low = i
		}
	}
	a := acts[low]
	p0 := ps[low]
	grow := func(high float64) float64 {
		// Small steps, many passes: the ratio creeps up to its bound.
		r := plugins.UpdateRequest{ClipLow: 0.2, ClipHigh: high, Epochs: 200}
		st := update(t, r, nil, 0.01, sampled(t, req, a.Knob, a.Value, "x", 1))
		return probOf(t, st, req, a.Knob, a.Value) / p0
	}
	g, d, free := grow(0.2), grow(0.28), grow(0)
	t.Logf("pi/pi_old of %s=%s (pi_old %.3f): clip 0.2 %.3f, clip 0.28 %.3f, unclipped %.3f", a.Knob, a.Value, p0, g, d, free)
	if !(g > 1.2 && g < 1.24) || !(d > 1.28 && d < 1.32) {
		t.Errorf("ratio should stop just past its bound: clip 0.2 gave %.3f, clip 0.28 gave %.3f", g, d)
	}
	if !(free > d) {
		t.Errorf("an unclipped update grew the ratio to %.3f, no more than clip 0.28's %.3f", free, d)
	}
}

// ClipLow bounds how far a bad proposal is pushed down.
func TestClipLowBoundsDecrease(t *testing.T) {
	req := proposeReq("t1", 1)
	s := sampled(t, req, "width", "16", "x", -1)
	p0 := probOf(t, nil, req, "width", "16")
	st := update(t, plugins.UpdateRequest{ClipLow: 0.2, Epochs: 200}, nil, 0.01, s)
	free := update(t, plugins.UpdateRequest{Epochs: 200}, nil, 0.01, s)
	r, rf := probOf(t, st, req, "width", "16")/p0, probOf(t, free, req, "width", "16")/p0
	if !(r < 0.8 && r > 0.75) || !(rf < r) {
		t.Errorf("pi/pi_old of a bad proposal: clip_low 0.2 gave %.3f (want just under 0.8), unclipped %.3f (want lower)", r, rf)
	}
}

// The KL term pulls a trained policy back toward the reference (the
// untrained model) even where advantages carry no signal.
func TestKLPullsTowardReference(t *testing.T) {
	trained := (&Policy{Version: policyVersion, Weights: map[string]float64{"edit:width=64": 3}}).Bytes()
	req := proposeReq("t1", 1)
	s := sampled(t, req, "width", "64", "x", 0)
	ref := probOf(t, nil, req, "width", "64")
	before := probOf(t, trained, req, "width", "64")
	withKL := probOf(t, update(t, plugins.UpdateRequest{KLCoef: 0.04, Epochs: 4}, trained, 1, s), req, "width", "64")
	without := probOf(t, update(t, plugins.UpdateRequest{Epochs: 4}, trained, 1, s), req, "width", "64")
	t.Logf("pi(width=64): reference %.3f, trained %.3f, after a KL update %.3f, without KL %.3f", ref, before, withKL, without)
	if !(withKL < before && withKL > ref) {
		t.Errorf("KL update moved pi from %.4f to %.4f, not toward the reference %.4f", before, withKL, ref)
	}
	if math.Abs(without-before) > 1e-12 {
		t.Errorf("with no advantage and no KL term the policy moved: %.6f -> %.6f", before, without)
	}
}

// Token-level loss weighs a sample by its tokens: a long good proposal
// outweighs a short bad one that a per-sample mean weighs the same.
func TestTokenLevelWeighsLongProposals(t *testing.T) {
	req := proposeReq("t1", 1)
	long := sampled(t, req, "activation", "gelu", strings.Repeat("a long, detailed rationale ", 20), 1)
	short := sampled(t, req, "activation", "relu", "relu", -1)
	seq := update(t, plugins.UpdateRequest{}, nil, 1, long, short)
	tok := update(t, plugins.UpdateRequest{TokenLevel: true}, nil, 1, long, short)
	ps, pt := probOf(t, seq, req, "activation", "gelu"), probOf(t, tok, req, "activation", "gelu")
	rs, rt := probOf(t, seq, req, "activation", "relu"), probOf(t, tok, req, "activation", "relu")
	if !(pt > ps) || !(rt > rs) {
		t.Errorf("token-level should push the long good proposal up more and the short bad one down less: gelu %.4f vs %.4f, relu %.4f vs %.4f", pt, ps, rt, rs)
	}
}

func TestUpdateRejectsBadHyperparameters(t *testing.T) {
	req := proposeReq("t1", 1)
	s := sampled(t, req, "width", "16", "x", 1)
	for _, r := range []plugins.UpdateRequest{
		{Algorithm: "ppo"}, {ClipLow: 1}, {ClipLow: -0.1}, {ClipHigh: -1}, {KLCoef: -0.1}, {Epochs: -1},
	} {
		r.LearningRate, r.Samples = 1, []plugins.Sample{s}
		if _, err := (Model{}).Update(context.Background(), &r); err == nil {
			t.Errorf("%+v was accepted", r)
		}
	}
}
