package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/runtime/journal"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	tinylm "github.com/assay-lang/assay/plugins/builtin/tinylm/model"
)

// fakeTrainer is a fast in-process trainer for engine tests: a proposal's
// metric is a fixed function of its edits (each edit moves the baseline by a
// hashed amount), so real gains are reproducible and no run trains.
type fakeTrainer struct {
	mu     sync.Mutex
	starts map[string]int // RunID -> Start calls that began a run
	runs   map[string]*plugins.RunResult
	delay  time.Duration
	// onStart, when set, is called after a run starts (tests cancel here).
	onStart func(n int)
	n       atomic.Int64
	// failWait makes the next failWait Wait calls fail like a dead plugin.
	failWait atomic.Int64
	// seconds, when set, is how long a run says it took; by default a run
	// takes its time limit, all it may (so it is charged its hold).
	seconds func(req *plugins.RunRequest) float64
	// limits records each run's time limit.
	limits map[string]float64
}

func newFakeTrainer() *fakeTrainer {
	return &fakeTrainer{starts: map[string]int{}, runs: map[string]*plugins.RunResult{}}
}

func effect(knob, value string) float64 {
	h := fnv.New64a()
	h.Write([]byte(knob + "=" + value))
	return (float64(h.Sum64()%2001)/1000 - 1) * 0.04
}

func (t *fakeTrainer) Describe(ctx context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return &plugins.DescribeResponse{Knobs: tinylm.Knobs()}, nil
}

func (t *fakeTrainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	t.mu.Lock()
	if _, ok := t.runs[req.RunID]; !ok {
		t.starts[req.RunID]++
		res := &plugins.RunResult{RunID: req.RunID, Status: plugins.StatusFinished, Metric: 1.5, Seconds: req.TimeLimitSeconds}
		if t.seconds != nil {
			res.Seconds = t.seconds(req)
		}
		if t.limits != nil {
			t.limits[req.RunID] = req.TimeLimitSeconds
		}
		if _, err := tinylm.DefaultHyper().Apply(req.Proposal.Edits); err != nil {
			res.Status, res.Reason = plugins.StatusInfeasible, err.Error()
		}
		keys := make([]string, 0, len(req.Proposal.Edits))
		for k := range req.Proposal.Edits {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			res.Metric -= effect(k, req.Proposal.Edits[k])
		}
		t.runs[req.RunID] = res
	}
	t.mu.Unlock()
	n := int(t.n.Add(1))
	if t.onStart != nil {
		t.onStart(n)
	}
	return &plugins.RunHandle{RunID: req.RunID, Handle: "h-" + req.RunID}, nil
}

func (t *fakeTrainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	if t.failWait.Load() > 0 && t.failWait.Add(-1) >= 0 {
		return nil, errors.New("rpc error: connection closed")
	}
	if t.delay > 0 {
		select {
		case <-time.After(t.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.runs[h.RunID]
	if !ok {
		return nil, fmt.Errorf("unknown run %s", h.RunID)
	}
	c := *r
	return &c, nil
}

func (t *fakeTrainer) Cancel(ctx context.Context, h *plugins.RunHandle) error { return nil }

func (t *fakeTrainer) doubleStarts() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for k, n := range t.starts {
		if n > 1 {
			out = append(out, k)
		}
	}
	return out
}

func (t *fakeTrainer) started() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.starts)
}

// flakyLLM wraps the offline model and fails calls on demand, like a
// plugin process that died.
type flakyLLM struct {
	plugins.LLM
	failAt map[int64]bool
	n      atomic.Int64
	dead   *atomic.Bool
}

func (f *flakyLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	n := f.n.Add(1)
	if f.dead.Load() || f.failAt[n] {
		f.dead.Store(true) // stays dead until restarted
		return nil, errors.New("rpc error: plugin process exited")
	}
	return f.LLM.Complete(ctx, req)
}

type inst struct {
	t plugins.Trainer
	l plugins.LLM
	b plugins.Benchmark
}

func (i *inst) Trainer() plugins.Trainer     { return i.t }
func (i *inst) LLM() plugins.LLM             { return i.l }
func (i *inst) Benchmark() plugins.Benchmark { return i.b }
func (i *inst) Close() error                 { return nil }

// testLoader serves "trainer" (the fake trainer) and "llm" (the offline
// model, optionally flaky) in process.
type testLoader struct {
	trainer *fakeTrainer
	opens   atomic.Int64
	tOpens  atomic.Int64
	lOpens  atomic.Int64
	failAt  map[int64]bool
	shared  *atomic.Int64
}

func (l *testLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	l.opens.Add(1)
	switch p.Kind {
	case plugins.KindTrainer:
		l.tOpens.Add(1)
		return &inst{t: l.trainer}, nil
	case plugins.KindLLM:
		l.lOpens.Add(1)
		if l.failAt != nil {
			f := &flakyLLM{LLM: offline.Model{}, failAt: l.failAt, dead: new(atomic.Bool)}
			if l.shared == nil {
				l.shared = new(atomic.Int64)
			}
			// The call counter survives restarts so failAt counts calls of
			// the whole run.
			f.n.Store(l.shared.Load())
			return &countingLLM{f, l.shared}, nil
		}
		return &inst{l: offline.Model{}}, nil
	}
	return nil, fmt.Errorf("unknown plugin kind %s", p.Kind)
}

type countingLLM struct {
	f      *flakyLLM
	shared *atomic.Int64
}

func (c *countingLLM) Trainer() plugins.Trainer     { return nil }
func (c *countingLLM) Benchmark() plugins.Benchmark { return nil }
func (c *countingLLM) Close() error                 { return nil }
func (c *countingLLM) LLM() plugins.LLM             { return c }
func (c *countingLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	c.shared.Add(1)
	return c.f.Complete(ctx, req)
}
func (c *countingLLM) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return c.f.Update(ctx, req)
}

func f64(x float64) *float64 { return &x }

func baseVariant() *plan.Variant {
	env := &plan.Environment{Name: "tiny", Metric: "val_bpb", Direction: "minimize", Trainer: "trainer", GPU: "CPU", GPUs: 1, Hours: plan.Exact(0.5), GPUHours: plan.Exact(0.5), TimeLimitSeconds: 1800}
	for i := 0; i < 3; i++ {
		env.Tasks = append(env.Tasks, &plan.Task{Name: fmt.Sprintf("t%d", i), Split: "train", Baseline: f64(1.5), Scale: f64(0.02), Direction: plan.Minimize})
	}
	env.Tasks = append(env.Tasks, &plan.Task{Name: "h0", Split: "holdout", Baseline: f64(1.5), Scale: f64(0.02), Direction: plan.Minimize})
	role := func(name string, temp float64) *plan.Role {
		// The offline model reports the tokens of what it reads and writes;
		// the highs bound them, as a spec's must (a call reported above its
		// high stops the run at the dollar cap).
		return &plan.Role{Name: name, Kind: name, Plugin: "llm", Temperature: temp, TokensIn: plan.Count{Low: 100, Expected: 100, High: 20000},
			TokensOut: plan.Count{Low: 10, Expected: 10, High: 2000}, PriceIn: 1, PriceOut: 2, Concurrency: 4}
	}
	return &plan.Variant{
		Name: "default", Seed: 7,
		Plugins:  []*plan.Plugin{{Name: "trainer", Kind: "trainer"}, {Name: "llm", Kind: "llm"}},
		Prices:   map[string]float64{"CPU": 2},
		Envs:     []*plan.Environment{env},
		Roles:    []*plan.Role{role("proposer", 1), role("rwm", 0), role("builder", 0)},
		Executor: plan.Executor{Kind: "local", Concurrency: 3},
	}
}

func runs(n float64) map[string]plan.Count { return map[string]plan.Count{"tiny": plan.Exact(n)} }

// lm2lmPlan is LM2LM in miniature: 6 seed runs, 8 DAPO steps with a
// rollout every 2 steps of 4 states x 4 proposals, calibration rounds of 3
// after steps 4 and 8, and Avg@2/Best@2 on the holdout task: 14 real runs.
func lm2lmPlan() *plan.Plan {
	v := baseVariant()
	v.Rewards = []*plan.Reward{{Name: "rwm_gain", GainFrom: "predicted", Predictor: "rwm", Normalize: "scale", Clip: 6,
		Value: pf("clip(predicted_gain / scale, -c, c) + diversity_bonus"), RepeatPenalty: 0.5, Infeasible: pf("-c"), DiversityBy: "mechanism", DiversityWeight: 0.2}}
	v.Loops = []*plan.Loop{{Name: "policy", Kind: "rl", Algorithm: "dapo", Steps: plan.Exact(8), RunSteps: 8, StatesPerStep: 4, ProposalsPerState: 4,
		RolloutEvery: 2, ZeroVariance: "drop", Reward: "rwm_gain", RewardSource: "predicted", Predictor: "rwm", Proposer: "proposer", Builder: "builder",
		LearningRate: 0.5, Split: "train"}}
	cal := &plan.Calibration{Select: "top_rated", Normalize: "scale", Clip: 6, Rounds: []*plan.CalibrationRound{
		{Name: "calibration_1", AfterStep: 4, Runs: 3, Calls: plan.Calls{RealRuns: runs(3)}},
		{Name: "calibration_2", AfterStep: 8, Runs: 3, Calls: plan.Calls{RealRuns: runs(3)}},
	}}
	v.Phases = []*plan.Phase{
		{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: seedBody(6), Calls: plan.Calls{RealRuns: runs(6)}},
		{Name: "policy", Kind: plan.PhaseRL, RL: &plan.RLBody{Loop: "policy", Steps: plan.Exact(8), Calibration: cal}},
		{Name: "evaluation", Kind: plan.PhaseEvaluation, Evaluation: evalBody(), Calls: plan.Calls{RealRuns: runs(2)}},
	}
	v.Budget = plan.Budget{RealRuns: 14}
	return &plan.Plan{FormatVersion: plan.FormatVersion, Name: "mini-lm2lm", Variants: []*plan.Variant{v}}
}

// evolvePlan is critic-screened evolution: 2 islands x 3 rounds per train
// task (3 tasks), 4 ideas per round, 5 critic votes, one verification per
// island-round: 18 real runs; a MAP-Elites archive and one top and one
// diverse program as inspirations.
func evolvePlan() *plan.Plan {
	v := baseVariant()
	v.Roles = append(v.Roles, &plan.Role{Name: "summarizer", Kind: "summarizer", Plugin: "llm", Temperature: 0.4, Concurrency: 4},
		&plan.Role{Name: "critic", Kind: "critic", Plugin: "llm", Temperature: 0.7, Concurrency: 4})
	route := pf("uncertainty >= threshold")
	v.Critics = []*plan.Critic{{Name: "screen", Role: "critic", Votes: 5, Labels: "3way", Aggregate: "majority", Tie: "route", Threshold: 0.25, Route: &route}}
	v.Loops = []*plan.Loop{{Name: "evolve", Kind: "evolution", Islands: 2, Rounds: 3, MigrationEvery: 2, MigrationRate: 0.5, Ideas: 4, Verifications: 1,
		Select: "best_mean_rank", Screen: "screen", Critic: "screen", Proposer: "proposer", Builder: "builder", Summarizer: "summarizer", Split: "train",
		TopPrograms: 1, DiversePrograms: 1, Features: []plan.Feature{{Name: "complexity", Bins: 3}, {Name: "score", Bins: 2}}}}
	v.Phases = []*plan.Phase{{Name: "evolve", Kind: plan.PhaseEvolution, Evolution: &plan.EvolutionBody{Loop: "evolve"}, Calls: plan.Calls{RealRuns: runs(18)}}}
	v.Budget = plan.Budget{RealRuns: 18}
	return &plan.Plan{FormatVersion: plan.FormatVersion, Name: "mini-evolve", Variants: []*plan.Variant{v}}
}

// criticGRPOPlan is critic-screened GRPO until a budget of 10 real runs,
// with the papers' new parents and one repair of a failed build.
func criticGRPOPlan() *plan.Plan {
	v := evolvePlan().Variants[0]
	v.Rewards = []*plan.Reward{{Name: "label", GainFrom: "critic", Value: pf("label_score"), Clip: 1, Infeasible: pf("-c")}}
	v.Loops = []*plan.Loop{{Name: "policy", Kind: "rl", Algorithm: "grpo", UntilBudget: true, Steps: plan.Count{Low: 1, Expected: 3, High: 40}, RunSteps: 40,
		StatesPerStep: 2, ProposalsPerState: 4, RolloutEvery: 1, ZeroVariance: "drop", Reward: "label", RewardSource: "critic", Screen: "screen",
		Critic: "screen", Routes: true, Proposer: "proposer", Builder: "builder", Summarizer: "summarizer", LearningRate: 0.5, Split: "train",
		NewParent: "all_improve", Repairs: 1}}
	v.Phases = []*plan.Phase{{Name: "policy", Kind: plan.PhaseRL, RL: &plan.RLBody{Loop: "policy", Steps: plan.Count{Low: 1, Expected: 3, High: 40}}}}
	v.Budget = plan.Budget{RealRuns: 10}
	return &plan.Plan{FormatVersion: plan.FormatVersion, Name: "mini-critic-grpo", Variants: []*plan.Variant{v}}
}

var _ = math.Abs

// seedBody is a seed-records body of n random proposals on the tiny
// environment, by the proposer and builder.
func seedBody(n int) *plan.SeedRecordsBody {
	return &plan.SeedRecordsBody{Select: "random", Proposer: "proposer", Builder: "builder", Proposals: map[string]int{"tiny": n}}
}

// evalBody is an Avg@2/Best@2 evaluation body on the holdout task, by
// the policy alone.
func evalBody() *plan.Evaluation {
	return &plan.Evaluation{Proposer: "proposer", Builder: "builder", Split: "holdout", AvgAt: 2, BestAt: 2, K: 2, States: 1, Normalize: "scale",
		Arms: []plan.EvalArm{{Name: plan.ArmPolicy, Proposer: "proposer"}}}
}

// pf is a formula as the compiler puts it into a plan: its text and its
// checked tree.
func pf(src string) plan.Formula {
	e := formula.MustParse(src)
	var conv func(n *formula.Node) *plan.Node
	conv = func(n *formula.Node) *plan.Node {
		out := &plan.Node{Op: n.Op, Num: n.Num, Name: n.Name, Start: n.Start, End: n.End}
		for _, a := range n.Args {
			out.Args = append(out.Args, conv(a))
		}
		return out
	}
	return plan.Formula{Source: src, Tree: conv(e.Tree())}
}

func newTestRunner(t testingT) *service {
	p := lm2lmPlan()
	dir := t.TempDir()
	j, err := journal.Open(filepath.Join(dir, "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	r := newService(context.Background(), p.Variants[0], j, dir, Options{Plugins: &testLoader{trainer: newFakeTrainer()}, Retries: 2})
	return r
}

type testingT interface {
	TempDir() string
	Fatal(args ...any)
	Cleanup(func())
}

func countSamples(t testingT, d []byte) int {
	var pr policyRecord
	if err := json.Unmarshal(d, &pr); err != nil {
		t.Fatal(err)
	}
	return pr.Samples
}
