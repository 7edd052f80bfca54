package model

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"

	"github.com/google/go-cmp/cmp"
)

var testKnobs = []plugins.Knob{
	{Name: "learning_rate", Mechanism: "optimizer", Default: "0.003", Values: []string{"0.001", "0.003", "0.01", "0.03"}},
	{Name: "width", Mechanism: "architecture", Default: "32", Values: []string{"16", "32", "64", "128"}},
	{Name: "activation", Mechanism: "architecture", Default: "tanh", Values: []string{"tanh", "relu", "gelu"}},
	{Name: "lr_schedule", Mechanism: "schedule", Default: "constant", Values: []string{"constant", "cosine"}},
}

func proposeReq(task string, n int) *payload.ProposeRequest {
	return &payload.ProposeRequest{Task: task, State: task + "/root", Knobs: testKnobs, N: n}
}

func editKey(p plugins.Proposal) string {
	return fmt.Sprint(p.Edits)
}

func TestProposeDeterministicAndNoisy(t *testing.T) {
	pol, _ := LoadPolicy(nil)
	a, err := pol.Propose(proposeReq("t1", 16), 1, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pol.Propose(proposeReq("t1", 16), 1, 42)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed, different proposals:\n%s", d)
	}
	c, _ := pol.Propose(proposeReq("t1", 16), 1, 43)
	if cmp.Equal(a, c) {
		t.Error("different seeds gave identical proposals")
	}
	distinct := map[string]bool{}
	for _, p := range a.Proposals {
		distinct[editKey(p)] = true
		if len(p.Edits) != 1 || p.Mechanism == "" || p.Text == "" {
			t.Errorf("malformed proposal %+v", p)
		}
	}
	if len(distinct) < 4 {
		t.Errorf("temperature 1 gave only %d distinct proposals of 16", len(distinct))
	}
	greedy, _ := pol.Propose(proposeReq("t1", 8), 0, 42)
	for _, p := range greedy.Proposals {
		if editKey(p) != editKey(greedy.Proposals[0]) {
			t.Fatal("temperature 0 is not greedy")
		}
	}
	// Proposals build on the parent and never repeat its values.
	req := proposeReq("t1", 32)
	req.Parent = &plugins.Proposal{Edits: map[string]string{"width": "64"}}
	out, _ := pol.Propose(req, 1, 1)
	for _, p := range out.Proposals {
		if p.Edits["width"] == "" || len(p.Edits) > 2 || (len(p.Edits) == 1 && p.Edits["width"] == "64") {
			t.Errorf("proposal %v does not build on parent width=64", p.Edits)
		}
	}
}

// TestGRPOImproves runs a GRPO loop against a hidden reward and checks the
// policy learns it, and that a policy restored from its bytes continues
// exactly.
func TestGRPOImproves(t *testing.T) {
	reward := func(p plugins.Proposal) float64 {
		if p.Edits["activation"] == "gelu" {
			return 1
		}
		return 0
	}
	var state []byte
	m := Model{}
	hit := func(state []byte, seed int64) float64 {
		pol, err := LoadPolicy(state)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := pol.Propose(proposeReq("t1", 200), 1, seed)
		n := 0.0
		for _, p := range out.Proposals {
			n += reward(p)
		}
		return n / 200
	}
	before := hit(nil, 999)
	for step := 0; step < 40; step++ {
		pol, _ := LoadPolicy(state)
		req := proposeReq("t1", 8)
		out, _ := pol.Propose(req, 1, int64(step))
		rs := make([]float64, len(out.Proposals))
		mean := 0.0
		for i, p := range out.Proposals {
			rs[i] = reward(p)
			mean += rs[i] / float64(len(rs))
		}
		reqJSON, _ := payload.Encode(req)
		var samples []plugins.Sample
		for i, p := range out.Proposals {
			samples = append(samples, plugins.Sample{State: string(reqJSON), Proposal: p, Advantage: rs[i] - mean})
		}
		up, err := m.Update(context.Background(), &plugins.UpdateRequest{LearningRate: 2, Samples: samples, State: state})
		if err != nil {
			t.Fatal(err)
		}
		state = up.State
	}
	after := hit(state, 999)
	t.Logf("share of gelu proposals: %.2f -> %.2f", before, after)
	if !(after > before+0.4) {
		t.Errorf("GRPO did not learn: share %.2f -> %.2f", before, after)
	}
	// Another task shares the global edit weights but not the task ones.
	restored, _ := LoadPolicy(state)
	if string(restored.Bytes()) != string(state) {
		t.Error("policy bytes do not round-trip")
	}
}

func TestUpdateRejects(t *testing.T) {
	pol, _ := LoadPolicy(nil)
	if _, _, err := pol.Update(&plugins.UpdateRequest{LearningRate: 1, Samples: []plugins.Sample{{State: "t1/root"}}}); err == nil {
		t.Error("a State that is not a ProposeRequest was accepted")
	}
	if _, err := LoadPolicy([]byte(`{"version":9}`)); err == nil {
		t.Error("wrong policy version accepted")
	}
}

// truth is a hidden additive gain function used to judge the world model.
func truth(task string, p plugins.Proposal) float64 {
	g := 0.0
	for k, v := range p.Edits {
		g += 0.1 * unitHash("truth:"+k+"="+v)
	}
	if task == "t2" {
		g *= 0.8
	}
	return g
}

func randomProposal(r *rng) plugins.Proposal {
	edits := map[string]string{}
	for _, k := range testKnobs {
		if r.float() < 0.5 {
			edits[k.Name] = k.Values[r.next()%uint64(len(k.Values))]
		}
	}
	return plugins.Proposal{Edits: edits}
}

func TestRWMCalibrationHelps(t *testing.T) {
	r := newRNG(5, "test")
	var heldOut []plugins.Proposal
	for range 60 {
		heldOut = append(heldOut, randomProposal(r))
	}
	var pool []payload.Record
	for range 200 {
		p := randomProposal(r)
		pool = append(pool, payload.Record{Task: "t1", Proposal: p, Gain: truth("t1", p) + 0.01*r.normal()})
	}
	mae := func(records []payload.Record) (float64, float64) {
		e, conf := 0.0, 0.0
		for i, p := range heldOut {
			out := Predict(&payload.PredictRequest{Task: "t1", Records: records, Proposal: p}, 1, int64(i))
			e += math.Abs(out.PredictedGain - truth("t1", p))
			conf += out.Confidence
		}
		return e / float64(len(heldOut)), conf / float64(len(heldOut))
	}
	prev, prevConf := mae(nil)
	t.Logf("0 records: MAE %.4f confidence %.2f", prev, prevConf)
	for _, n := range []int{20, 200} {
		e, c := mae(pool[:n])
		t.Logf("%d records: MAE %.4f confidence %.2f", n, e, c)
		if !(e < prev) || !(c > prevConf) {
			t.Errorf("%d records: MAE %.4f (was %.4f), confidence %.2f (was %.2f): calibration did not help", n, e, prev, c, prevConf)
		}
		prev, prevConf = e, c
	}
	// Noise: the same request at other seeds varies.
	p := heldOut[0]
	a := Predict(&payload.PredictRequest{Task: "t1", Proposal: p}, 1, 1)
	b := Predict(&payload.PredictRequest{Task: "t1", Proposal: p}, 1, 2)
	if a.PredictedGain == b.PredictedGain {
		t.Error("predictions at different seeds are identical")
	}
}

func TestCriticVotes(t *testing.T) {
	r := newRNG(9, "critic-test")
	var records []payload.Record
	for range 150 {
		p := randomProposal(r)
		records = append(records, payload.Record{Task: "t1", Proposal: p, Gain: truth("t1", p)})
	}
	parent := plugins.Proposal{ID: "parent", Edits: map[string]string{}}
	correct, total, split := 0, 0, 0
	for i := range 40 {
		child := randomProposal(r)
		child.ID = fmt.Sprint("c", i)
		d := truth("t1", child) - truth("t1", parent)
		votes := map[string]int{}
		for s := range 16 {
			out, err := Critique(&payload.CritiqueRequest{Task: "t1", Parent: parent, Child: child, Labels: payload.Labels3, Records: records}, 0.7, int64(s))
			if err != nil {
				t.Fatal(err)
			}
			votes[out.Label]++
		}
		top := 0
		for _, v := range votes {
			top = max(top, v)
		}
		// Uncertainty u = 1 - top/16 at or above 0.25 routes the pair.
		if 1-float64(top)/16 >= 0.25 {
			split++
		}
		maj, best := "", -1
		for _, l := range payload.LabelSet(payload.Labels3) {
			if votes[l] > best {
				maj, best = l, votes[l]
			}
		}
		if maj == payload.LabelTie {
			continue
		}
		total++
		if (maj == payload.LabelImprove) == (d > 0) {
			correct++
		}
	}
	t.Logf("majority right on %d of %d decisive pairs; %d of 40 pairs were uncertain enough to route", correct, total, split)
	if total == 0 || float64(correct)/float64(total) < 0.7 {
		t.Errorf("critic majority accuracy %d/%d, want at least 70%%", correct, total)
	}
	if split < 4 || split > 30 {
		t.Errorf("%d of 40 pairs were routed: want genuine spread on some pairs, not all", split)
	}
	five, err := Critique(&payload.CritiqueRequest{Task: "t1", Parent: parent, Child: parent, Labels: payload.Labels5}, 0.7, 1)
	if err != nil || payload.LabelRank(payload.Labels5, five.Label) < 0 {
		t.Errorf("5-way label %+v, %v", five, err)
	}
	if _, err := Critique(&payload.CritiqueRequest{Labels: "4way"}, 1, 1); err == nil {
		t.Error("unknown label space accepted")
	}
}

func TestImplementAndSummarize(t *testing.T) {
	fails := 0
	for s := range 200 {
		out := Implement(&payload.ImplementRequest{Task: "t1", Knobs: testKnobs, Proposal: plugins.Proposal{ID: "p", Edits: map[string]string{"width": "60"}}}, int64(s))
		if out.Infeasible {
			fails++
			continue
		}
		if out.Proposal.Edits["width"] != "64" {
			t.Fatalf("width 60 did not snap to 64: %v", out.Proposal.Edits)
		}
	}
	if fails == 0 || fails > 30 {
		t.Errorf("%d of 200 builds failed, want a few", fails)
	}
	a := Implement(&payload.ImplementRequest{Knobs: testKnobs, Proposal: plugins.Proposal{ID: "q", Text: "Set activation to gelu and lr_schedule = cosine."}}, 3)
	b := Implement(&payload.ImplementRequest{Knobs: testKnobs, Proposal: plugins.Proposal{ID: "q", Text: "Set activation to gelu and lr_schedule = cosine."}}, 3)
	if !cmp.Equal(a, b) {
		t.Error("Implement is not deterministic for a seed")
	}
	if !a.Infeasible && (a.Proposal.Edits["activation"] != "gelu" || a.Proposal.Edits["lr_schedule"] != "cosine") {
		t.Errorf("edits from text: %v", a.Proposal.Edits)
	}
	if bad := Implement(&payload.ImplementRequest{Knobs: testKnobs, Proposal: plugins.Proposal{Edits: map[string]string{"dropout": "0.1"}}}, 1); !bad.Infeasible {
		t.Error("unknown knob built")
	}
	s := Summarize(&payload.SummarizeRequest{Proposal: plugins.Proposal{ID: "p", Mechanism: "architecture", Text: "This will be amazing!", Edits: map[string]string{"width": "64"}}}, 1)
	if s.Summary == "" || !containsAll(s.Summary, "width = 64", "architecture") || containsAll(s.Summary, "amazing") {
		t.Errorf("summary %q", s.Summary)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !contains(s, x) {
			return false
		}
	}
	return true
}

func contains(s, x string) bool { return len(x) == 0 || indexOf(s, x) >= 0 }

func indexOf(s, x string) int {
	for i := 0; i+len(x) <= len(s); i++ {
		if s[i:i+len(x)] == x {
			return i
		}
	}
	return -1
}

func TestCompleteRoles(t *testing.T) {
	m := Model{}
	enc := func(v any) []byte { b, _ := payload.Encode(v); return b }
	p := plugins.Proposal{ID: "p", Mechanism: "architecture", Edits: map[string]string{"width": "64"}}
	for _, tc := range []struct {
		role string
		in   []byte
		out  any
	}{
		{plugins.RolePropose, enc(proposeReq("t1", 4)), &payload.ProposeResponse{}},
		{plugins.RolePredict, enc(payload.PredictRequest{Task: "t1", Proposal: p}), &payload.PredictResponse{}},
		{plugins.RoleCritic, enc(payload.CritiqueRequest{Task: "t1", Child: p, Labels: payload.Labels5}), &payload.CritiqueResponse{}},
		{plugins.RoleSummarize, enc(payload.SummarizeRequest{Task: "t1", Proposal: p}), &payload.SummarizeResponse{}},
		{plugins.RoleBuild, enc(payload.ImplementRequest{Task: "t1", Proposal: p, Knobs: testKnobs}), &payload.ImplementResponse{}},
		{plugins.RoleImplement, enc(payload.ImplementRequest{Task: "t1", Proposal: p, Knobs: testKnobs}), &payload.ImplementResponse{}},
	} {
		resp, err := m.Complete(context.Background(), &plugins.CompleteRequest{Role: tc.role, Temperature: 0.7, Seed: 1, Payload: tc.in,
			Messages: []plugins.Message{{Role: "user", Content: "Answer in JSON."}}})
		if err != nil {
			t.Fatalf("%s: %v", tc.role, err)
		}
		if err := payload.Decode(resp.Payload, tc.out); err != nil {
			t.Errorf("%s: %v", tc.role, err)
		}
		if resp.Usage.In <= 0 || resp.Usage.Out <= 0 || resp.Text == "" {
			t.Errorf("%s: usage %+v text %q", tc.role, resp.Usage, resp.Text)
		}
	}
	if _, err := m.Complete(context.Background(), &plugins.CompleteRequest{Role: "poet"}); err == nil {
		t.Error("unknown role accepted")
	}
	if _, err := m.Complete(context.Background(), &plugins.CompleteRequest{Role: plugins.RolePredict, Payload: []byte(`{"tsak":"x"}`)}); err == nil {
		t.Error("misspelt payload field accepted")
	}
}

// A proposer shown inspirations with a positive gain borrows their edits
// more often; one shown only worse programs proposes as without them.
func TestProposeBorrowsFromInspirations(t *testing.T) {
	pol, _ := LoadPolicy(nil)
	count := func(req *payload.ProposeRequest) int {
		resp, err := pol.Propose(req, 1, 42)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range resp.Proposals {
			if p.Edits["width"] == "128" {
				n++
			}
		}
		return n
	}
	plain := count(proposeReq("t1", 200))
	good := proposeReq("t1", 200)
	good.Inspirations = []payload.Record{{Task: "t1", Gain: 0.02, Proposal: plugins.Proposal{Edits: map[string]string{"width": "128"}}}}
	bad := proposeReq("t1", 200)
	bad.Inspirations = []payload.Record{{Task: "t1", Gain: -0.02, Proposal: plugins.Proposal{Edits: map[string]string{"width": "128"}}}}
	if g := count(good); g <= plain {
		t.Errorf("width=128 proposed %d times with a good inspiration making it, %d without", g, plain)
	}
	if b := count(bad); b != plain {
		t.Errorf("width=128 proposed %d times with a worse inspiration, %d without: only better programs inspire", b, plain)
	}
}
