package model

import (
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

func critReq(mech string) *payload.CritiqueRequest {
	return &payload.CritiqueRequest{Task: "t", Labels: payload.Labels3,
		Parent: plugins.Proposal{ID: "base"},
		Child:  plugins.Proposal{ID: "c-" + mech, Mechanism: mech, Edits: map[string]string{"learning_rate": "0.01"}}}
}

func critSample(t *testing.T, mech, completion string, adv float64) plugins.Sample {
	t.Helper()
	b, err := payload.Encode(critReq(mech))
	if err != nil {
		t.Fatal(err)
	}
	return plugins.Sample{State: string(b), Completion: completion, Advantage: adv}
}

// SFT moves a mechanism's bias and the change's weights toward its
// labels' relative change: the critic that judged it by its estimate now
// gives the taught verdict, and each epoch closes more of the gap.
func TestCriticSFTLearnsTheLabels(t *testing.T) {
	c, _ := LoadCritic(nil)
	samples := []plugins.Sample{critSample(t, "optimizer", `{"label":"improve"}`, 1), critSample(t, "data", "lose: taught", 1)}
	next, _, err := c.UpdateCritic(&plugins.UpdateRequest{Algorithm: payload.AlgCriticSFT, Epochs: 3, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	if next.Bias["optimizer"] <= 0 || next.Bias["data"] >= 0 || next.Updates != 1 {
		t.Fatalf("biases %v after SFT on improve (optimizer) and lose (data)", next.Bias)
	}
	one, _, err := c.UpdateCritic(&plugins.UpdateRequest{Algorithm: payload.AlgCriticSFT, Epochs: 1, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	// The squared gaps to the labels' z (+1, -1), of both samples.
	gap := func(s *CriticState) float64 {
		a, b := 1-s.criticZ(critReq("optimizer")), -1-s.criticZ(critReq("data"))
		return a*a + b*b
	}
	if !(gap(c) > gap(one) && gap(one) > gap(next)) {
		t.Fatalf("the squared gaps to the labels' z: untrained %g, 1 epoch %g, 3 epochs %g; want them to shrink with each epoch", gap(c), gap(one), gap(next))
	}
	for _, temp := range []float64{0, 0.7} {
		for seed := int64(0); seed < 8; seed++ {
			r, err := CritiqueState(critReq("data"), temp, seed, next)
			if err != nil || r.Label != payload.LabelLose {
				t.Fatalf("trained critic on a data change: %v %v, want lose", r, err)
			}
		}
	}
}

// GRPO pushes the bias the way verdicts that beat their group point.
func TestCriticGRPOFollowsTheAdvantage(t *testing.T) {
	c, _ := LoadCritic(nil)
	next, _, err := c.UpdateCritic(&plugins.UpdateRequest{Algorithm: payload.AlgCriticGRPO, Samples: []plugins.Sample{
		critSample(t, "optimizer", "lose: x", 1), critSample(t, "optimizer", "improve: y", -1)}})
	if err != nil {
		t.Fatal(err)
	}
	// Each sample has two parameters, its mechanism's bias and its one
	// setting's weight: each moves by half the signal.
	if next.Bias["optimizer"] != -grpoStep/2 || next.Weights["set:learning_rate=0.01"] != -grpoStep/2 {
		t.Fatalf("bias %g, weights %v after lose +1 and improve -1, want %g each", next.Bias["optimizer"], next.Weights, -grpoStep/2)
	}
	if _, _, err := c.UpdateCritic(&plugins.UpdateRequest{Algorithm: "grpo", Samples: []plugins.Sample{critSample(t, "x", "lose", 1)}}); err == nil {
		t.Fatal("a proposer's algorithm was taken for a critic update")
	}
	if _, _, err := c.UpdateCritic(&plugins.UpdateRequest{Algorithm: payload.AlgCriticSFT, Samples: []plugins.Sample{critSample(t, "x", "no verdict", 1)}}); err == nil {
		t.Fatal("a sample without a verdict was trained on")
	}
}

func TestLoadCriticRefuses(t *testing.T) {
	for _, st := range []string{`{"critic": 2}`, `{"critic": 1, "bias": {"x": "a"}}`, `nope`} {
		if _, err := LoadCritic([]byte(st)); err == nil {
			t.Errorf("LoadCritic(%s) took it", st)
		}
	}
}

// A teacher's hint: a revealed label is the verdict; an excluded verdict
// gives way to its neighbour toward Tie.
func TestCritiqueHint(t *testing.T) {
	req := critReq("optimizer")
	req.Hint = &payload.CritiqueHint{Label: payload.LabelTie}
	if r, _ := Critique(req, 0.7, 1); r.Label != payload.LabelTie {
		t.Fatalf("revealed tie, answered %s", r.Label)
	}
	req.Hint = nil
	first, _ := Critique(req, 0, 1)
	req.Hint = &payload.CritiqueHint{Exclude: first.Label}
	r, _ := Critique(req, 0, 1)
	if r.Label == first.Label {
		t.Fatalf("excluded %s, answered it again", first.Label)
	}
	if got := towardTie(payload.Labels5, payload.LabelBigWin, 3); got != payload.LabelMediumWin {
		t.Fatalf("towardTie(BigWin) = %s", got)
	}
	if got := towardTie(payload.Labels3, payload.LabelTie, -1); got != payload.LabelLose {
		t.Fatalf("towardTie(tie, z<0) = %s", got)
	}
}

// What the critic learns is a feature of the change, not of the pair or
// its task: SFT on one task's pairs where raising the learning rate
// improved and lowering it lost moves the critic's verdict on another
// task's pair that makes the same move, with other mechanisms and values.
func TestCriticLearnsChangesAcrossTasks(t *testing.T) {
	pair := func(task, from, to string) *payload.CritiqueRequest {
		return &payload.CritiqueRequest{Task: task, Labels: payload.Labels3,
			Parent: plugins.Proposal{ID: "p", Edits: map[string]string{"learning_rate": from, "width": "64"}},
			Child:  plugins.Proposal{ID: "c", Mechanism: "optimizer", Edits: map[string]string{"learning_rate": to, "width": "64"}}}
	}
	sample := func(r *payload.CritiqueRequest, label string) plugins.Sample {
		b, err := payload.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		return plugins.Sample{State: string(b), Completion: label + ": taught"}
	}
	var samples []plugins.Sample
	for _, v := range [][2]string{{"0.001", "0.003"}, {"0.003", "0.01"}, {"0.0003", "0.001"}} {
		samples = append(samples, sample(pair("a", v[0], v[1]), "improve"), sample(pair("a", v[1], v[0]), "lose"))
	}
	if got := changeFeatures(pair("a", "0.001", "0.003")); len(got) != 2 || got[0] != "set:learning_rate=0.003" || got[1] != "move:learning_rate:up" {
		t.Fatalf("features %v", got)
	}
	c, _ := LoadCritic(nil)
	next, _, err := c.UpdateCritic(&plugins.UpdateRequest{Algorithm: payload.AlgCriticSFT, Epochs: 3, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	// Task b, a move no sample made (0.01 -> 0.03 and back): only the
	// direction carries over.
	up, down := pair("b", "0.01", "0.03"), pair("b", "0.03", "0.01")
	if d := next.criticZ(up) - next.criticZ(down); d <= c.criticZ(up)-c.criticZ(down) {
		t.Fatalf("z(up) - z(down) on task b: %g trained, %g untrained; want the trained critic to prefer the upward move more", d, c.criticZ(up)-c.criticZ(down))
	}
	if next.Weights["move:learning_rate:up"] <= 0 || next.Weights["move:learning_rate:down"] >= 0 {
		t.Fatalf("weights %v", next.Weights)
	}
}
