package runtime

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// recordingLLM is the offline model, noting what each evaluation proposal
// request carried: the policy checkpoint and the records in its prompt.
type recordingLLM struct {
	offline.Model
	mu    sync.Mutex
	evals []evalCall
}

type evalCall struct {
	trained bool // the request carried a policy checkpoint
	records int
}

func (m *recordingLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role == plugins.RolePropose {
		var pr payload.ProposeRequest
		if err := payload.Decode(req.Payload, &pr); err == nil && strings.HasPrefix(pr.State, "eval/") {
			m.mu.Lock()
			m.evals = append(m.evals, evalCall{trained: len(req.State) > 0, records: len(pr.Records)})
			m.mu.Unlock()
		}
	}
	return m.Model.Complete(ctx, req)
}

type recordingLoader struct {
	tr  *fakeTrainer
	llm *recordingLLM
}

func (l *recordingLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindTrainer {
		return &inst{t: l.tr}, nil
	}
	return &inst{l: l.llm}, nil
}

// TestEvaluationArms evaluates the trained policy, the untrained Base arm
// and an in-context arm on 2 states of the holdout task, with the world
// model predicting every evaluated proposal.
func TestEvaluationArms(t *testing.T) {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Phases[len(v.Phases)-1].Evaluation = &plan.Evaluation{Proposer: "proposer", Builder: "builder", Split: "holdout", AvgAt: 2, BestAt: 3, K: 3, States: 2, Normalize: "scale", Predictor: "rwm",
		Arms: []plan.EvalArm{{Name: plan.ArmPolicy, Proposer: "proposer"}, {Name: plan.ArmBase, Proposer: "proposer", Untrained: true},
			{Name: plan.ArmICL, Proposer: "proposer", Untrained: true, Records: 4}}}
	// 1 holdout task x 2 states x 3 proposals x 3 arms.
	const evalRuns = 18
	v.Phases[len(v.Phases)-1].Calls.RealRuns = runs(evalRuns)
	v.Budget.RealRuns = 12 + evalRuns
	dir := t.TempDir()
	l := &recordingLoader{tr: newFakeTrainer(), llm: &recordingLLM{}}
	res, err := Run(context.Background(), p, Options{ID: "e", Dir: dir, Plugins: l})
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.RealRuns != 12+evalRuns {
		t.Errorf("real runs %d, want %d", res.Totals.RealRuns, 12+evalRuns)
	}
	checkEvalProposals(t, l.llm.evals)
	ev := events(t, dir, "e", journal.KindEval)
	if len(ev) != 1 {
		t.Fatalf("%d evaluation events", len(ev))
	}
	var f EvalFigures
	if err := json.Unmarshal(ev[0].Data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Arms) != 3 || f.Arms[2].Records != 4 || f.States != 2 || f.BeatsBase == nil {
		t.Fatalf("figures %+v", f)
	}
	checkEvalFigures(t, f)
	st, err := ReadStatus(dir, "e")
	if err != nil || len(st.Evaluation) != 1 || st.Evaluation[0].RWM == nil || len(st.Calibration) != 2 {
		t.Errorf("status: %v; evaluation %+v, calibration %d", err, st.Evaluation, len(st.Calibration))
	}
}

// checkEvalProposals checks TestEvaluationArms' proposal requests: 6 for
// each arm, the in-context arm's from the untrained policy with 4 records.
func checkEvalProposals(t *testing.T, evals []evalCall) {
	t.Helper()
	var trained, base, icl int
	for _, c := range evals {
		switch {
		case c.records > 0:
			icl++
			if c.trained || c.records != 4 {
				t.Errorf("icl call %+v: want the untrained policy and 4 records", c)
			}
		case c.trained:
			trained++
		default:
			base++
		}
	}
	if trained != 6 || base != 6 || icl != 6 {
		t.Errorf("evaluation proposals: %d trained, %d base, %d icl; want 6 each", trained, base, icl)
	}
}

// checkEvalFigures checks TestEvaluationArms' figures of each arm: states,
// families, gains normalised by the task's scale, and the world model's.
func checkEvalFigures(t *testing.T, f EvalFigures) {
	t.Helper()
	for _, a := range f.Arms {
		if a.States != 2 || len(a.Families) != 1 || len(a.Tasks) != 1 || len(a.Tasks[0].Gains) != 6 {
			t.Errorf("arm %s: %d states, %d families, tasks %+v", a.Arm, a.States, len(a.Families), a.Tasks)
		}
		// Best@3 over a state is at least its Avg@2's smaller proposals'.
		if a.Best < a.Avg-1e-9 {
			t.Errorf("arm %s: Best@3 %v below Avg@2 %v", a.Arm, a.Best, a.Avg)
		}
	}
	if f.Avg != f.Arms[0].Avg {
		t.Errorf("policy Avg %v, arm %v", f.Avg, f.Arms[0].Avg)
	}
	// Gains are over the task's scale (0.02): the fake trainer's effects
	// are a few hundredths of a bpb, so normalised gains exceed raw ones.
	g := f.Arms[0].Tasks[0].Gains
	var big bool
	for _, x := range g {
		big = big || math.Abs(x) > 0.1
	}
	if !big {
		t.Errorf("gains %v look unnormalised", g)
	}
	if f.RWM == nil || f.RWM.Points == 0 || f.RWM.Pairs == 0 || f.RWM.Records == 0 {
		t.Errorf("world-model figures %+v", f.RWM)
	}
}

func TestGroupStats(t *testing.T) {
	// One state ordered alike, one reversed.
	alike := [][2]float64{{1, 10}, {2, 20}, {3, 30}}
	reversed := [][2]float64{{1, 3}, {2, 2}, {3, 1}}
	acc, pairs, cos, groups := groupStats([][][2]float64{alike})
	if acc != 1 || pairs != 3 || math.Abs(cos-1) > 1e-9 || groups != 1 {
		t.Errorf("alike: %v %v %v %v", acc, pairs, cos, groups)
	}
	acc, _, cos, _ = groupStats([][][2]float64{reversed})
	if acc != 0 || math.Abs(cos+1) > 1e-9 {
		t.Errorf("reversed: %v %v", acc, cos)
	}
	acc, pairs, cos, groups = groupStats([][][2]float64{alike, reversed, {{1, 1}}, {{1, 2}, {1, 3}}})
	if acc != 0.5 || pairs != 6 || math.Abs(cos) > 1e-9 || groups != 2 {
		t.Errorf("mixed: %v %v %v %v (a single point and a flat prediction count no group)", acc, pairs, cos, groups)
	}
}

func TestAUROC(t *testing.T) {
	pts := []critPoint{{score: 0.9, improved: true}, {score: 0.8, improved: false}, {score: 0.7, improved: true}, {score: 0.1, improved: false}}
	if got := auroc(pts); got != 0.75 {
		t.Errorf("auroc = %v, want 0.75", got)
	}
	if got := auroc(pts[:1]); got != 0 {
		t.Errorf("one class: %v", got)
	}
	m := newMeasured()
	m.critic("l", critPoint{score: 1, improved: false, errored: true, routed: true})
	m.critic("l", critPoint{score: 1, improved: false, errored: true})
	m.critic("l", critPoint{score: 0, improved: true, errored: true, routed: true})
	m.critic("l", critPoint{score: 1, improved: true})
	got := m.snapshot().Loops["l"]
	if got.CriticVerified != 4 || got.CriticErrors != 3 || got.CriticErrorsRouted != 2 || got.ErrorRecall != 0.666667 || got.CriticAUROC != 0.25 {
		t.Errorf("critic figures %+v", got)
	}
}

// TestCriticFiguresInEvolution: evolution verifies the idea the critic
// ranks first whatever its uncertainty, so its errors can be unrouted.
func TestCriticFiguresInEvolution(t *testing.T) {
	res, err := runPlan(t, evolvePlan(), t.TempDir(), "evo", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	l := res.Totals.Measured.Loops["evolve"]
	if l == nil || l.CriticVerified != 18 || l.CriticErrorsRouted > l.CriticErrors {
		t.Fatalf("critic figures %+v", l)
	}
	if l.CriticAUROC < 0 || l.CriticAUROC > 1 {
		t.Errorf("AUROC %v", l.CriticAUROC)
	}
}
