package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

func testWorld() *World {
	return &World{Seed: 7, Clock: NewClock(time.Unix(0, 0)), Knobs: DefaultKnobs(),
		Envs: map[string]*Env{"e": {Gain: Dist{Kind: "normal", A: 0, B: 1}, Hours: Fixed(2), Slots: 4,
			Tasks: map[string]*Task{"t": {Split: "train", Baseline: 3, Scale: 0.5, Minimize: true}}}},
		Roles: map[string]*Role{
			RoleKey("llm", plugins.RoleCritic, "m"):  {Name: "critic", Accuracy: 1, Unsure: 0.5, Seconds: 36},
			RoleKey("llm", plugins.RolePredict, "m"): {Name: "rwm", Noise: 0},
		}}
}

func TestTrainerMeasuresTheGain(t *testing.T) {
	w := testWorld()
	tr := NewTrainer(w).Trainer()
	ctx := context.Background()
	p := plugins.Proposal{ID: "p", Edits: map[string]string{"knob01": "3"}}
	run := func(id string, p plugins.Proposal) *plugins.RunResult {
		h, err := tr.Start(ctx, &plugins.RunRequest{RunID: id, Env: "e", Task: "t", Proposal: p})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Wait(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	base := run("b", plugins.Proposal{ID: "baseline"})
	if base.Metric != 3 {
		t.Errorf("baseline run measured %g, want 3", base.Metric)
	}
	a, b := run("a1", p), run("a2", p)
	g, _ := w.gain("e", "t", p)
	if a.Metric != b.Metric || a.Metric != 3-g || g == 0 {
		t.Errorf("runs of one proposal measured %g and %g, gain %g", a.Metric, b.Metric, g)
	}
	// Three runs of 2 hours, 4 at once: the clock moved 1.5 hours.
	if got := w.Clock.Now().Sub(time.Unix(0, 0)).Hours(); math.Abs(got-1.5) > 1e-9 {
		t.Errorf("clock moved %g hours", got)
	}
	if _, err := tr.Wait(ctx, &plugins.RunHandle{RunID: "never"}); err != plugins.ErrUnknownRun {
		t.Errorf("Wait on an unknown run: %v", err)
	}
}

func TestCriticVotes(t *testing.T) {
	w := testWorld()
	l := NewLLM(w, "llm").LLM()
	ctx := context.Background()
	split, sure := 0, 0
	for i := 0; i < 200; i++ {
		child := plugins.Proposal{ID: "c", Edits: map[string]string{"knob02": string(rune('0' + i%8)), "knob03": string(rune('0' + i/8%8))}}
		in := payload.CritiqueRequest{Task: "t", Env: "e", Parent: plugins.Proposal{ID: "base"}, Child: child, Labels: payload.Labels3}
		labels := map[string]int{}
		for v := 0; v < 4; v++ {
			resp, err := l.Complete(ctx, &plugins.CompleteRequest{Role: plugins.RoleCritic, Model: "m", Seed: int64(v), Input: in})
			if err != nil {
				t.Fatal(err)
			}
			var out payload.CritiqueResponse
			if err := payload.Decode(resp.Payload, &out); err != nil {
				t.Fatal(err)
			}
			labels[out.Label]++
		}
		switch {
		case len(labels) == 2 && labels[payload.LabelImprove] == 2:
			split++
		case len(labels) == 1:
			g, _ := w.gain("e", "t", child)
			want := payload.LabelLose
			if g > 0 {
				want = payload.LabelImprove
			}
			if labels[want] != 4 {
				t.Errorf("a sure critic of accuracy 1 voted %v on gain %g", labels, g)
			}
			sure++
		default:
			t.Errorf("votes %v", labels)
		}
	}
	// About half of the candidates split their votes (Unsure 0.5).
	if split < 70 || sure < 70 {
		t.Errorf("split %d, sure %d of 200", split, sure)
	}
}

// TestCriticJudgesPairsOutsideTheWorld: a static critic evaluation's pair
// of a task the world does not hold gets a verdict of the label space,
// the same on every vote, and both verdicts occur over many pairs.
func TestCriticJudgesPairsOutsideTheWorld(t *testing.T) {
	w := testWorld()
	w.Roles[RoleKey("llm", plugins.RoleCritic, "m")].Unsure = 0
	l := NewLLM(w, "llm").LLM()
	seen := map[string]int{}
	for i := 0; i < 40; i++ {
		in := payload.CritiqueRequest{Task: "elsewhere", Env: "tiny", Parent: plugins.Proposal{ID: "base"},
			Child: plugins.Proposal{ID: "c", Edits: map[string]string{"lr": string(rune('a' + i))}}, Labels: payload.Labels3}
		var first string
		for v := 0; v < 3; v++ {
			resp, err := l.Complete(context.Background(), &plugins.CompleteRequest{Role: plugins.RoleCritic, Model: "m", Seed: int64(v), Input: in})
			if err != nil {
				t.Fatal(err)
			}
			var out payload.CritiqueResponse
			if err := payload.Decode(resp.Payload, &out); err != nil {
				t.Fatal(err)
			}
			if payload.LabelRank(payload.Labels3, out.Label) < 0 || (v > 0 && out.Label != first) {
				t.Fatalf("pair %d vote %d: %q (first %q)", i, v, out.Label, first)
			}
			first = out.Label
		}
		seen[first]++
	}
	if seen[payload.LabelImprove] == 0 || seen[payload.LabelLose] == 0 {
		t.Errorf("verdicts over 40 pairs: %v", seen)
	}
}
