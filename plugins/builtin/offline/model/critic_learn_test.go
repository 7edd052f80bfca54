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

// SFT moves a mechanism's bias toward its labels' relative change: the
// critic that judged it by its estimate now gives the taught verdict.
func TestCriticSFTLearnsTheLabels(t *testing.T) {
	c, _ := LoadCritic(nil)
	req := &plugins.UpdateRequest{Algorithm: payload.AlgCriticSFT, Epochs: 3, Samples: []plugins.Sample{
		critSample(t, "optimizer", `{"label":"improve"}`, 1), critSample(t, "data", "lose: taught", 1)}}
	next, _, err := c.UpdateCritic(req)
	if err != nil {
		t.Fatal(err)
	}
	if next.Bias["optimizer"] <= 0 || next.Bias["data"] >= 0 || next.Updates != 1 {
		t.Fatalf("biases %v after SFT on improve (optimizer) and lose (data)", next.Bias)
	}
	// Three epochs close 1 - 0.5^3 of the gap.
	if got, want := next.criticZ(critReq("optimizer")), 1-0.125*(1-c.criticZ(critReq("optimizer"))); got-want > 1e-9 || want-got > 1e-9 {
		t.Fatalf("optimizer's z after SFT %g, want %g", got, want)
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
	if next.Bias["optimizer"] != -grpoStep {
		t.Fatalf("bias %g after lose +1 and improve -1, want %g", next.Bias["optimizer"], -grpoStep)
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
