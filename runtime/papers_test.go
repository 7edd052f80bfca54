package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// A proposal that repeats one of its task's records is a repeat even when
// it is alone in its group: it gets the group's lowest valid reward less
// delta. A candidate whose routed run the budget could not pay takes no
// part in the group's lowest reward.
func TestRepeatOfARecord(t *testing.T) {
	sh, err := newShaper(lm2lmPlan().Variants[0].Rewards[0])
	if err != nil {
		t.Fatal(err)
	}
	known := plugins.Proposal{ID: "a", Mechanism: "optimizer", Edits: map[string]string{"lr": "0.01"}}
	g := []candidate{
		{Proposal: known, Predicted: 0.02},
		{Proposal: plugins.Proposal{ID: "b", Mechanism: "attention", Edits: map[string]string{"heads": "8"}}, Predicted: 0.04},
		{Proposal: plugins.Proposal{ID: "c", Mechanism: "data", Edits: map[string]string{"mix": "web"}}, Predicted: -0.9, Skipped: true},
	}
	prior := map[string]bool{proposalKey(known): true}
	if err := sh.shape(g, taskInfo{Scale: 0.02}, prior); err != nil {
		t.Fatal(err)
	}
	if !g[0].Repeat || g[1].Repeat || g[2].Repeat {
		t.Fatalf("repeats = %v %v %v, want only the record's", g[0].Repeat, g[1].Repeat, g[2].Repeat)
	}
	// b alone is valid: 0.04/0.02 = 2 plus the full diversity bonus 0.2.
	if want := 2.2 - 0.5; !near(g[0].Reward, want) {
		t.Errorf("repeat reward = %v, want %v (lowest valid 2.2 less delta 0.5)", g[0].Reward, want)
	}
	if g[2].Reward != 0 {
		t.Errorf("unpaid routed candidate reward = %v, want none (0)", g[2].Reward)
	}
	// Without the record, a is valid.
	g[0].Repeat = false
	if err := sh.shape(g, taskInfo{Scale: 0.02}, nil); err != nil {
		t.Fatal(err)
	}
	if g[0].Repeat {
		t.Error("a is a repeat with no record of it")
	}
}

// A candidate routed to a real run the budget could not pay is left out of
// its group's advantages and of the policy update.
func TestUnpaidRoutedCandidateIsNotRewarded(t *testing.T) {
	r := newTestRunner(t)
	p := lm2lmPlan()
	x, err := newRLLoop(r, scope{}, 1, p.Variants[0].Phases[1])
	if err != nil {
		t.Fatal(err)
	}
	task := &taskInfo{Env: "tiny", Name: "t0", Split: "train", Baseline: 1.5, Scale: 0.02, Minimize: true}
	cands := make([]candidate, 4)
	for i := range cands {
		cands[i] = candidate{Proposal: plugins.Proposal{ID: fmt.Sprint(i), Edits: map[string]string{"lr": fmt.Sprint(i)}}, Reward: float64(i % 2), sample: &sampled{req: &payload.ProposeRequest{}, text: "p"}}
	}
	cands[3].Skipped, cands[3].Reward = true, 0
	gr := &group{State: "s", Task: task, TaskKey: "tiny/t0", Cands: cands}
	if err := x.update(0, []*group{gr}); err != nil {
		t.Fatal(err)
	}
	if !gr.Kept || gr.Adv[3] != 0 {
		t.Fatalf("kept %v, advantages %v: the unpaid candidate must have none", gr.Kept, gr.Adv)
	}
	// The three rewarded ones are 0, 1, 0: mean 1/3.
	if gr.Adv[1] <= 0 || gr.Adv[0] >= 0 || !near(gr.Adv[0], gr.Adv[2]) {
		t.Errorf("advantages %v, want those of rewards 0, 1, 0", gr.Adv)
	}
	d, ok, err := r.j.Last(journal.KindPolicy, "policy/update/0")
	if err != nil || !ok {
		t.Fatal("no policy update journaled")
	}
	if n := countSamples(t, d); n != 3 {
		t.Errorf("samples = %d, want 3 (the unpaid candidate is left out)", n)
	}
}

// A build that fails gets the loop's repairs, each one builder call under
// its own key, told why the last attempt failed; the candidate counts once
// in the loop's builds.
func TestRepairsOfAFailedBuild(t *testing.T) {
	for _, repairs := range []int{0, 3} {
		r := newTestRunner(t)
		r.loops["policy"].Repairs = repairs
		task := &taskInfo{Env: "tiny", Name: "t0", Split: "train", Baseline: 1.5, Scale: 0.02, Minimize: true}
		// The trainer has no knob "nope", so every attempt fails.
		_, ok, err := r.implement("builder", "policy", "k", task, plugins.Proposal{ID: "x", Edits: map[string]string{"nope": "1"}})
		if err != nil || ok {
			t.Fatalf("repairs %d: built %v, err %v; want a failed build", repairs, ok, err)
		}
		if got := r.n.calls(); got != 1+repairs {
			t.Errorf("repairs %d: %d builder calls, want %d", repairs, got, 1+repairs)
		}
		m := r.measured.snapshot().Loops["policy"]
		if m.Built != 1 || m.BuildFailed != 1 || m.Repairs != repairs {
			t.Errorf("repairs %d: measured %+v, want 1 build, 1 failed, %d repairs", repairs, m, repairs)
		}
		if repairs > 0 {
			if _, ok, err := r.j.Last(journal.KindCall, fmt.Sprintf("k/repair/%d", repairs)); err != nil || !ok {
				t.Errorf("no journaled call k/repair/%d", repairs)
			}
		}
	}
}

// With new_parent = "all_improve", a group whose every candidate was judged
// Improve hands its task a new parent, one of its children; a group with
// one that was not leaves the parent.
func TestNewParentWhenAllImprove(t *testing.T) {
	r := newTestRunner(t)
	r.loops["policy"].NewParent = "all_improve"
	x, err := newRLLoop(r, scope{}, 1, lm2lmPlan().Variants[0].Phases[1])
	if err != nil {
		t.Fatal(err)
	}
	mk := func(state string, improve ...bool) *group {
		gr := &group{State: state, TaskKey: "tiny/t0", Parent: seedParent(), ParentGain: 0.01}
		for i, im := range improve {
			gr.Cands = append(gr.Cands, candidate{Proposal: plugins.Proposal{ID: fmt.Sprint(i), Edits: map[string]string{"lr": fmt.Sprint(i)}}, Improve: im})
		}
		return gr
	}
	x.moveParent(mk("s0", true, false, true))
	if x.parents["tiny/t0"] != nil {
		t.Fatal("a group with a child that was not judged Improve moved the parent")
	}
	gr := mk("s1", true, true, true)
	gr.Cands[1].HasReal, gr.Cands[1].RealGain = true, 0.05
	x.moveParent(gr)
	tp := x.parents["tiny/t0"]
	if tp == nil || gr.NewParent == 0 {
		t.Fatal("every child was judged Improve, and the parent stayed")
	}
	if c := gr.Cands[gr.NewParent-1]; tp.p.ID != c.Proposal.ID {
		t.Errorf("new parent %q, want the chosen child %q", tp.p.ID, c.Proposal.ID)
	}
	want := 0.01 // an unverified child keeps the line's last verified gain
	if gr.NewParent == 2 {
		want = 0.05
	}
	if tp.gain != want {
		t.Errorf("parent gain %v, want %v", tp.gain, want)
	}
	// The line's lineage: a verified child is measured by its own run
	// (candidate key STATE/INDEX); an unverified one by none, and the next
	// group's real runs say so.
	if gr.NewParent == 2 {
		if tp.cand != "s1/1" || tp.unmeasured {
			t.Errorf("verified new parent: candidate %q, unmeasured %v; want s1/1, false", tp.cand, tp.unmeasured)
		}
	} else if tp.cand != "" || !tp.unmeasured {
		t.Errorf("unverified new parent: candidate %q, unmeasured %v; want none", tp.cand, tp.unmeasured)
	}
	next := &group{State: "s3", Parent: tp.p, parentCand: tp.cand, parentUnmeasured: tp.unmeasured}
	if l := next.lineage("s3/0"); l.Candidate != "s3/0" || l.ParentCandidate != tp.cand || l.ParentUnmeasured != tp.unmeasured || l.Parent.ID != tp.p.ID {
		t.Errorf("lineage %+v does not name the group's parent", l)
	}
	// "never" leaves every parent.
	r.loops["policy"].NewParent = "never"
	x.parents = map[string]*taskParent{}
	x.moveParent(mk("s2", true, true))
	if len(x.parents) != 0 {
		t.Error("new_parent never moved a parent")
	}
}

// In LM2LM the builder decides feasibility: every proposal of a rollout is
// built before the world model predicts it, and a calibration round runs
// its whole budget from candidates that built.
func TestLM2LMBuildsRolloutsAndCalibratesBuiltCandidates(t *testing.T) {
	dir := t.TempDir()
	res, err := runPlan(t, lm2lmPlan(), dir, "b", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Totals.Measured.Loops["policy"]
	// 4 refreshes x 4 states x 4 proposals; a proposal the proposer fails
	// to make is not built.
	if m == nil || m.Built < 60 || m.Built > 64 {
		t.Fatalf("loop builds = %+v, want one per rollout proposal (about 64)", m)
	}
	for _, e := range events(t, dir, "b", journal.KindCalibration) {
		var fig CalibrationFigures
		if err := json.Unmarshal(e.Data, &fig); err != nil {
			t.Fatal(err)
		}
		if fig.Runs != 3 {
			t.Errorf("calibration round %d ran %d, want its budget of 3", fig.Round, fig.Runs)
		}
	}
	if rr := res.Totals.Measured.Roles["rwm"]; rr == nil || rr.Calls > 64-m.BuildFailed {
		t.Errorf("world model calls %+v: a candidate that did not build is not predicted (%d failed)", rr, m.BuildFailed)
	}
}

// Migration copies each island's best programs, a share of its programs
// but at least one, to the next island of the ring, deciding what moves
// before anything moves; an island that holds a program already is not
// given it again, and a better migrant becomes the parent.
func TestMigrateRing(t *testing.T) {
	prog := func(id string, g float64) program {
		return program{P: plugins.Proposal{ID: id, Edits: map[string]string{"k": id}}, Gain: g}
	}
	isl := []island{{}, {}, {}}
	isl[0].Progs = []program{prog("a", 0.1), prog("b", 0.5), prog("c", 0.3), prog("d", 0.2)}
	isl[0].Parent = 1
	isl[1].Progs = []program{prog("e", 0.2)}
	isl[2].Progs = []program{prog("f", 0.05), prog("b", 0.5)}
	isl[2].Parent = 1
	moved := migrate(isl, 0.5)
	ids := func(is island) (out []string) {
		for _, p := range is.Progs {
			out = append(out, p.P.ID)
		}
		return out
	}
	// Island 0 sends its 2 best (b, c) to 1; 1 sends e to 2; 2 sends b
	// to 0, which holds it already.
	if got := fmt.Sprint(ids(isl[1])); got != "[e b c]" {
		t.Errorf("island 1 = %s, want [e b c]", got)
	}
	if got := fmt.Sprint(ids(isl[2])); got != "[f b e]" {
		t.Errorf("island 2 = %s, want [f b e] (e, not what island 1 received)", got)
	}
	if got := fmt.Sprint(ids(isl[0])); got != "[a b c d]" {
		t.Errorf("island 0 = %s, want it unchanged", got)
	}
	if moved != 3 {
		t.Errorf("moved = %d, want 3", moved)
	}
	if isl[1].parent().P.ID != "b" {
		t.Errorf("island 1 parent = %s, want the better migrant b", isl[1].parent().P.ID)
	}
}

// The MAP-Elites archive keeps the best program of each cell.
func TestArchiveKeepsEachCellsBest(t *testing.T) {
	a := newArchive([]plan.Feature{{Name: "complexity", Bins: 3}})
	one := func(id string, g float64, n int) program {
		e := map[string]string{}
		for i := 0; i < n; i++ {
			e[fmt.Sprint("k", i)] = id
		}
		return program{P: plugins.Proposal{ID: id, Edits: e}, Gain: g}
	}
	for _, p := range []program{one("a", 0.1, 1), one("b", 0.3, 1), one("c", 0.2, 1), one("d", 0.1, 2), one("e", 0.9, 7)} {
		a.add(p, nil)
	}
	got := map[string]string{}
	for c, p := range a.cells {
		got[c] = p.P.ID
	}
	// 2 and 7 edits both fall in the last bin (2).
	if len(got) != 2 || got["2"] != "e" || got["1"] != "b" {
		t.Errorf("cells = %v, want 1:b (best of a, b, c) and 2:e (best of d, e)", got)
	}
}

// inspLLM records the inspirations of every propose request.
type inspLLM struct {
	plugins.LLM
	mu   *sync.Mutex
	insp *[]int
}

func (r inspLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role == plugins.RolePropose {
		var in payload.ProposeRequest
		if err := payload.Decode(req.Payload, &in); err == nil {
			r.mu.Lock()
			*r.insp = append(*r.insp, len(in.Inspirations))
			r.mu.Unlock()
		}
	}
	return r.LLM.Complete(ctx, req)
}

type inspLoader struct {
	testLoader
	mu   sync.Mutex
	insp []int
}

func (l *inspLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindLLM {
		return &inst{l: inspLLM{LLM: offline.Model{}, mu: &l.mu, insp: &l.insp}}, nil
	}
	return l.testLoader.Open(ctx, p)
}

// An island's proposer sees its top programs and archive elites once it
// has verified some, and never more than the loop asks for.
func TestEvolutionInspirations(t *testing.T) {
	p := evolvePlan()
	l := p.Variants[0].Loops[0]
	l.TopPrograms, l.DiversePrograms, l.Features = 2, 1, []plan.Feature{{Name: "complexity", Bins: 4}, {Name: "mechanism", Bins: 3}}
	rl := &inspLoader{testLoader: testLoader{trainer: newFakeTrainer()}}
	res, err := runPlan(t, p, t.TempDir(), "e", rl, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.RealRuns != 18 {
		t.Errorf("real runs = %d, want 18", res.Totals.RealRuns)
	}
	most := 0
	for _, n := range rl.insp {
		if n > 3 {
			t.Fatalf("a proposer saw %d inspirations, more than 2 top + 1 diverse", n)
		}
		most = max(most, n)
	}
	if len(rl.insp) != 72 || rl.insp[0] != 0 || most < 2 {
		t.Errorf("%d propose calls, first saw %d, most %d: want 72, 0 (nothing verified yet), and later some", len(rl.insp), rl.insp[0], most)
	}
}

// An evolution loop that verifies routed ideas runs every idea its critic
// routes, and fills verifications_per_round from the rest by its select
// rule.
func TestEvolutionVerifiesRoutedIdeas(t *testing.T) {
	p := evolvePlan()
	p.Variants[0].Loops[0].Routes = true
	p.Variants[0].Budget.RealRuns = 200
	res, err := runPlan(t, p, t.TempDir(), "r", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Totals.Measured.Loops["evolve"]
	if m == nil || m.Routed == 0 || m.Judged == 0 {
		t.Fatalf("measured %+v: the critic routed nothing, so the test shows nothing", m)
	}
	// 18 island-rounds: each runs its routed ideas and one more, unless
	// every idea that built was routed.
	if n := res.Totals.RealRuns; n < m.Routed || n > m.Routed+18 || n <= 18 {
		t.Errorf("real runs = %d with %d routed ideas, want between max(routed, 19) and routed + 18", n, m.Routed)
	}
}
