package runtime

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAdvantages(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want []float64
		ok   bool
	}{
		{[]float64{1, 3}, []float64{-1, 1}, true},
		{[]float64{0, 0, 0, 4}, []float64{-1 / math.Sqrt(3), -1 / math.Sqrt(3), -1 / math.Sqrt(3), math.Sqrt(3)}, true},
		{[]float64{2, 2, 2}, []float64{0, 0, 0}, false}, // zero variance: dropped
		{[]float64{5}, []float64{0}, false},
		{nil, nil, false},
	} {
		got, ok := advantages(tc.in)
		if ok != tc.ok || len(got) != len(tc.want) {
			t.Errorf("advantages(%v) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			continue
		}
		var sum float64
		for i := range got {
			sum += got[i]
			if !near(got[i], tc.want[i]) {
				t.Errorf("advantages(%v)[%d] = %v, want %v", tc.in, i, got[i], tc.want[i])
			}
		}
		if !near(sum, 0) {
			t.Errorf("advantages(%v) sum to %v, want 0", tc.in, sum)
		}
	}
}

func TestUpdateDropsZeroVarianceGroups(t *testing.T) {
	mk := func(rs ...float64) *group {
		g := &group{State: "s"}
		for _, r := range rs {
			g.Cands = append(g.Cands, candidate{Reward: r, Proposal: plugins.Proposal{ID: "p", Mechanism: "optimizer", Edits: map[string]string{"optimizer": "adam"}},
				sample: &sampled{text: "p", req: &payload.ProposeRequest{Task: "t0", State: "s", Knobs: []plugins.Knob{{Name: "optimizer", Mechanism: "optimizer", Default: "sgd", Values: []string{"sgd", "adam"}}}, N: 1}}})
		}
		return g
	}
	for _, tc := range []struct {
		zv      string
		samples int
	}{{"drop", 2}, {"keep", 5}} {
		r := newTestRunner(t)
		l := &plan.Loop{Name: "l", ZeroVariance: tc.zv, LearningRate: 0.1, Proposer: "proposer"}
		groups := []*group{mk(1, 2), mk(3, 3, 3)}
		x := &rlLoop{s: r, l: l, calibrated: map[string]bool{}}
		if err := x.update(0, groups); err != nil {
			t.Fatal(err)
		}
		ev, _ := r.j.Events("step")
		if len(ev) != 1 {
			t.Fatalf("step events %d", len(ev))
		}
		if groups[1].Kept != (tc.zv == "keep") || !groups[0].Kept {
			t.Errorf("%s: kept = %v %v", tc.zv, groups[0].Kept, groups[1].Kept)
		}
		pol, _ := r.j.Events("policy")
		if len(pol) != 1 {
			t.Fatalf("%s: policy events %d", tc.zv, len(pol))
		}
		if got := countSamples(t, pol[0].Data); got != tc.samples {
			t.Errorf("%s: samples %d, want %d", tc.zv, got, tc.samples)
		}
	}
}

func TestShape(t *testing.T) {
	rw := &plan.Reward{Name: "r", GainFrom: "predicted", Normalize: "scale", Clip: 6,
		Value: pf("clip(predicted_gain / scale, -c, c) + diversity_bonus"), RepeatPenalty: 0.5, Infeasible: pf("-c"), DiversityBy: "mechanism", DiversityWeight: 0.3}
	sh, err := newShaper(rw)
	if err != nil {
		t.Fatal(err)
	}
	p := func(mech, k, v string) plugins.Proposal {
		return plugins.Proposal{Mechanism: mech, Edits: map[string]string{k: v}}
	}
	g := []candidate{
		{Proposal: p("optimizer", "lr", "1"), Predicted: 0.02},    // 1 + 0.3/2
		{Proposal: p("optimizer", "lr", "2"), Predicted: 1.0},     // clipped to 6, + 0.15
		{Proposal: p("architecture", "w", "8"), Predicted: -0.04}, // -2 + 0.3/2 (two architecture)
		{Proposal: p("architecture", "w", "8"), Predicted: 0.5},   // repeat of the third
		{Proposal: p("schedule", "s", "x"), Infeasible: true},     // -c
	}
	if err := sh.shape(g, taskInfo{Scale: 0.02, Baseline: 1}, nil); err != nil {
		t.Fatal(err)
	}
	want := []float64{1.15, 6.15, -1.85, -1.85 - 0.5, -6}
	for i := range g {
		if !near(g[i].Reward, want[i]) {
			t.Errorf("candidate %d reward %v, want %v", i, g[i].Reward, want[i])
		}
	}
	if !g[3].Repeat || g[2].Repeat {
		t.Error("repeat flags wrong")
	}
	// normalize = none ignores the task scale.
	rw2 := *rw
	rw2.Normalize, rw2.DiversityWeight = "none", 0
	sh2, _ := newShaper(&rw2)
	g2 := []candidate{{Proposal: p("o", "a", "1"), Predicted: 0.02}}
	sh2.shape(g2, taskInfo{Scale: 0.02}, nil)
	if !near(g2[0].Reward, 0.02) {
		t.Errorf("normalize none: %v", g2[0].Reward)
	}
	// A group with no valid proposal: repeats and infeasibles use -c.
	g3 := []candidate{{Proposal: p("o", "a", "1"), Infeasible: true}}
	sh.shape(g3, taskInfo{Scale: 1}, nil)
	if !near(g3[0].Reward, -6) {
		t.Errorf("all infeasible: %v", g3[0].Reward)
	}
	if _, err := newShaper(&plan.Reward{Value: plan.Formula{Source: "clip(predicted_gain", Tree: &plan.Node{Op: "call", Name: "clip", End: 19}}, Infeasible: pf("-c")}); err == nil {
		t.Error("malformed formula tree accepted")
	}
}

func TestAggregateAndRoute(t *testing.T) {
	c3 := func(agg, tie string) *plan.Critic {
		route := pf("uncertainty >= threshold")
		return &plan.Critic{Name: "c", Labels: "3way", Aggregate: agg, Tie: tie, Threshold: 0.25, Route: &route}
	}
	rep := func(label string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = label
		}
		return out
	}
	cat := func(xs ...[]string) []string {
		var out []string
		for _, x := range xs {
			out = append(out, x...)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		c      *plan.Critic
		votes  []string
		label  string
		u      float64
		routed bool
	}{
		// 13 of 16 agree: u = 3/16 < 0.25, the majority verdict stands.
		{"confident", c3("majority", "route"), cat(rep("improve", 13), rep("lose", 3)), "improve", 3.0 / 16, false},
		// 12 of 16: u = 0.25, at the threshold: routed.
		{"uncertain", c3("majority", "route"), cat(rep("improve", 12), rep("tie", 4)), "improve", 0.25, true},
		{"tie route", c3("majority", "route"), cat(rep("improve", 8), rep("lose", 8)), "improve", 0.5, true},
		{"tie lose", c3("majority", "lose"), cat(rep("improve", 2), rep("lose", 2)), "lose", 0.5, true},
		{"tie tie", c3("majority", "tie"), cat(rep("improve", 2), rep("lose", 2)), "tie", 0.5, true},
		{"unanimous", c3("majority", "route"), rep("lose", 4), "lose", 0, false},
		// Mean rank (improve 0, tie 1, lose 2): 3 x 0 + 1 x 2 = 0.5 -> tie rule.
		{"mean rank half lose", c3("mean_rank", "lose"), cat(rep("improve", 3), rep("lose", 1)), "tie", 0.25, true},
		{"mean rank", c3("mean_rank", "route"), cat(rep("improve", 7), rep("lose", 1)), "improve", 0.125, false},
		{"unknown label is worst", c3("majority", "route"), []string{"great", "great", "great", "great"}, "lose", 0, false},
	} {
		v := aggregate(tc.c, tc.votes)
		rt, err := newRouter(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.route(&v, len(tc.votes)); err != nil {
			t.Fatal(err)
		}
		if v.Label != tc.label || !near(v.Uncertainty, tc.u) || v.Routed != tc.routed {
			t.Errorf("%s: got %s u=%v routed=%v; want %s u=%v routed=%v", tc.name, v.Label, v.Uncertainty, v.Routed, tc.label, tc.u, tc.routed)
		}
	}
	// 5-way: BigWin and SmallWin are improvements, Tie is not.
	c5 := &plan.Critic{Labels: "5way", Aggregate: "majority", Tie: "route", Threshold: 0.25}
	v := aggregate(c5, []string{"BigWin", "SmallWin", "SmallWin", "Tie"})
	if v.Label != "SmallWin" || !near(v.ImproveShare, 0.75) || !improving("5way", v.Label) || improving("5way", "Tie") {
		t.Errorf("5-way: %+v", v)
	}
	// A custom route formula.
	c := c3("majority", "lose")
	route := pf("improve_share > 0.5 && agreement < 0.9")
	c.Route = &route
	rt, err := newRouter(c)
	if err != nil {
		t.Fatal(err)
	}
	v = aggregate(c, cat(rep("improve", 7), rep("lose", 3)))
	rt.route(&v, 10)
	if !v.Routed {
		t.Error("custom route formula did not route")
	}
}

func TestProposalKeyAndMerge(t *testing.T) {
	a := plugins.Proposal{Edits: map[string]string{"x": "1", "y": "2"}}
	b := plugins.Proposal{Text: "other words", Edits: map[string]string{"y": "2", "x": "1"}}
	if proposalKey(a) != proposalKey(b) {
		t.Error("same edits, different keys")
	}
	if k := proposalKey(a); k != "x=1;y=2;" {
		t.Errorf("key %q, want the edits sorted", k)
	}
	many := map[string]string{}
	for i := range 10 {
		many[fmt.Sprintf("k%d", 9-i)] = fmt.Sprint(i)
	}
	if k := proposalKey(plugins.Proposal{Edits: many}); k != "k0=9;k1=8;k2=7;k3=6;k4=5;k5=4;k6=3;k7=2;k8=1;k9=0;" {
		t.Errorf("key of ten edits %q", k)
	}
	m := merge(plugins.Proposal{Edits: map[string]string{"x": "1"}}, plugins.Proposal{ID: "c", Edits: map[string]string{"x": "3", "z": "4"}})
	if m.Edits["x"] != "3" || m.Edits["z"] != "4" || m.ID != "c" {
		t.Errorf("merge = %+v", m)
	}
}

func TestCalibrationError(t *testing.T) {
	pts := []CalibPoint{
		{Task: "a", Predicted: 0.1, Real: 0.2},
		{Task: "a", Predicted: 0.3, Real: 0.1},
		{Task: "a", Predicted: 0.0, Real: -0.1},
		{Task: "b", Predicted: 1.0, Real: 0.0},
	}
	mae, acc, pairs := calibrationError(pts)
	// |−0.1| + 0.2 + 0.1 + 1 = 1.4 / 4; task-a pairs: (1,2) wrong, (1,3) right, (2,3) right.
	if !near(mae, 0.35) || pairs != 3 || !near(acc, 2.0/3) {
		t.Errorf("mae %v acc %v pairs %d", mae, acc, pairs)
	}
}

func TestDerivedRandomness(t *testing.T) {
	if derive(1, "a/b") == derive(1, "a/c") || derive(1, "a") == derive(2, "a") {
		t.Error("derived seeds collide")
	}
	if rng(3, "k").Uint64() != rng(3, "k").Uint64() {
		t.Error("same key, different stream")
	}
}

func TestCallRecordJSON(t *testing.T) {
	for _, c := range []callRecord{
		{Role: "rwm", Payload: json.RawMessage(`{"predicted_gain":0.5}`), In: 10, Out: 2},
		{Role: "crit\"ic<é>", Failed: "line\nbreak \\ \"quoted\""},
		{Role: "rwm", Payload: json.RawMessage(`{}`), In: 3000, Out: 100, Breach: "the dollar cap stops the run: \"over\"\n"},
		{Role: ""},
		{Role: "critic", Unparsed: "no verdict matches \"Final verdict:\\s*(\\w+)\"", Reasks: 2, In: 30, Out: 9},
	} {
		b, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var got callRecord
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got.Role != c.Role || got.Failed != c.Failed || got.Unparsed != c.Unparsed || got.Reasks != c.Reasks || got.Breach != c.Breach || got.In != c.In || got.Out != c.Out || string(got.Payload) != string(c.Payload) {
			t.Errorf("round trip of %+v gave %+v", c, got)
		}
	}
	if _, err := (callRecord{Payload: json.RawMessage(`{`)}).MarshalJSON(); err == nil {
		t.Error("a payload that is not JSON was written")
	}
}
