package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
)

func TestRunnableNeedsLearningRate(t *testing.T) {
	p := &plan.Plan{Variants: []*plan.Variant{{Executor: plan.Executor{Concurrency: 1},
		Loops: []*plan.Loop{{Name: "policy", Kind: "rl", Split: "train", Proposer: "p", RolloutEvery: 1, StatesPerStep: 1, ProposalsPerState: 2, RunSteps: 1}}}}}
	err := runnable(p)
	if err == nil || !strings.Contains(err.Error(), `loop "policy" has no learning_rate`) {
		t.Fatalf("runnable = %v, want a learning_rate error", err)
	}
	p.Variants[0].Loops[0].LearningRate = 0.5
	if err := runnable(p); err != nil {
		t.Fatalf("runnable = %v, want nil", err)
	}
	evo := &plan.Plan{Variants: []*plan.Variant{{Executor: plan.Executor{Concurrency: 1},
		Loops: []*plan.Loop{{Name: "evolve", Kind: "evolution", Split: "train", Proposer: "p", Islands: 1, Rounds: 1, Ideas: 1, Verifications: 1}}}}}
	if err := runnable(evo); err != nil {
		t.Fatalf("evolution loop needs no learning rate: %v", err)
	}
}

// A plan whose defaults are missing is refused, not run with defaults the
// runtime would make up.
func TestRunnableRefusesMissingDefaults(t *testing.T) {
	for name, mut := range map[string]func(v *plan.Variant){
		"executor concurrency":  func(v *plan.Variant) { v.Executor.Concurrency = 0 },
		"rollout_every":         func(v *plan.Variant) { v.Loops[0].RolloutEvery = 0 },
		"split":                 func(v *plan.Variant) { v.Loops[0].Split = "" },
		"proposer":              func(v *plan.Variant) { v.Loops[0].Proposer = "" },
		"role concurrency":      func(v *plan.Variant) { v.Roles[0].Concurrency = 0 },
		"evaluation k":          func(v *plan.Variant) { v.Phases[2].Evaluation.K = 0 },
		"evaluation states":     func(v *plan.Variant) { v.Phases[2].Evaluation.States = 0 },
		"calibration normalize": func(v *plan.Variant) { v.Phases[1].RL.Calibration.Normalize = "" },
		"no body":               func(v *plan.Variant) { v.Phases[0].SeedRecords = nil },
		"another kind's body":   func(v *plan.Variant) { v.Phases[0].RL = v.Phases[1].RL },
		"run_steps":             func(v *plan.Variant) { v.Loops[0].RunSteps = 0 },
		"negative run_steps":    func(v *plan.Variant) { v.Loops[0].RunSteps = -1 },
		"task direction":        func(v *plan.Variant) { v.Envs[0].Tasks[1].Direction = "" },
		"unknown direction":     func(v *plan.Variant) { v.Envs[0].Tasks[1].Direction = "down" },
	} {
		p := lm2lmPlan()
		mut(p.Variants[0])
		if err := runnable(p); err == nil || !strings.Contains(err.Error(), "compile the spec again") {
			t.Errorf("%s: runnable = %v, want a refusal", name, err)
		}
	}
	if err := runnable(lm2lmPlan()); err != nil {
		t.Errorf("a compiled plan: %v", err)
	}
}

// An RL phase's calibration rounds run after the steps they name, in
// order: rounds out of order, or after no step, are refused rather than
// run in an order the plan does not say.
func TestRunnableRefusesRoundsOutOfOrder(t *testing.T) {
	rounds := func(v *plan.Variant) []*plan.CalibrationRound { return v.Phases[1].RL.Calibration.Rounds }
	for name, mut := range map[string]func(v *plan.Variant){
		"rounds out of order": func(v *plan.Variant) { rounds(v)[0].AfterStep, rounds(v)[1].AfterStep = 8, 4 },
		"one step twice":      func(v *plan.Variant) { rounds(v)[1].AfterStep = 4 },
		"after no step":       func(v *plan.Variant) { rounds(v)[0].AfterStep = 0 },
	} {
		p := lm2lmPlan()
		mut(p.Variants[0])
		if err := runnable(p); err == nil || !strings.Contains(err.Error(), "calibration") {
			t.Errorf("%s: runnable = %v, want a refusal", name, err)
		}
	}
}

// A refusal about a plan node names the spec block it came from, so the
// user sees what to compile again; one about a node without a recorded
// position still reads plainly.
func TestRunnableRefusalsArePositioned(t *testing.T) {
	at := func(line int) diag.Range {
		return diag.Range{Filename: "lm2lm.hcl", Start: diag.Pos{Line: line, Column: 1}, End: diag.Pos{Line: line, Column: 5}}
	}
	for name, c := range map[string]struct {
		mut  func(v *plan.Variant)
		want string
	}{
		"loop":                  {func(v *plan.Variant) { v.Loops[0].Source, v.Loops[0].RunSteps = at(40), 0 }, `lm2lm.hcl:40:1: plan variant default: loop "policy" has run_steps 0`},
		"learning rate":         {func(v *plan.Variant) { v.Loops[0].Source, v.Loops[0].LearningRate = at(41), 0 }, `lm2lm.hcl:41:1: loop "policy" has no learning_rate`},
		"task":                  {func(v *plan.Variant) { v.Envs[0].Source, v.Envs[0].Tasks[0].Direction = at(7), "up" }, `lm2lm.hcl:7:1: plan variant default: task "t0" of environment "tiny" has direction "up"`},
		"role":                  {func(v *plan.Variant) { v.Roles[1].Source, v.Roles[1].Concurrency = at(20), 0 }, `lm2lm.hcl:20:1: plan variant default: role "rwm" has concurrency 0`},
		"evaluation phase":      {func(v *plan.Variant) { v.Phases[2].Source, v.Phases[2].Evaluation.K = at(60), 0 }, `lm2lm.hcl:60:1: plan variant default: evaluation has k 0`},
		"calibration phase":     {func(v *plan.Variant) { v.Phases[1].Source, v.Phases[1].RL.Calibration.Normalize = at(50), "" }, `lm2lm.hcl:50:1: plan variant default: the calibration of phase policy has no normalize`},
		"no recorded position":  {func(v *plan.Variant) { v.Loops[0].RunSteps = 0 }, `plan variant default: loop "policy" has run_steps 0`},
		"executor, not a block": {func(v *plan.Variant) { v.Executor.Concurrency = 0 }, `plan variant default: executor concurrency 0`},
	} {
		p := lm2lmPlan()
		c.mut(p.Variants[0])
		if err := runnable(p); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: runnable = %v, want it to begin %q", name, err, c.want)
		}
	}
}

// The runtime runs the steps the plan instructs, not the estimate's
// count: a loop estimated at 8 steps but told to run 4 runs 4, and its
// calibration round after step 8 does not run.
func TestRunStepsIsTheInstruction(t *testing.T) {
	p := lm2lmPlan()
	p.Variants[0].Loops[0].RunSteps = 4
	res, err := runPlan(t, p, t.TempDir(), "four", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	// 6 seed runs, one calibration round of 3 after step 4, 2 evaluation runs.
	if tot := res.Totals; tot.Steps != 4 || tot.RealRuns != 6+3+2 {
		t.Errorf("steps %d, real runs %d; want 4 steps and 11 real runs", tot.Steps, tot.RealRuns)
	}
}

// Each task's direction is the plan's, task by task: the runtime does not
// fall back to its environment's metric.
func TestTaskDirectionIsThePlans(t *testing.T) {
	r := newTestRunner(t)
	e := r.v.Envs[0]
	e.Direction = plan.Maximize
	e.Tasks[1].Direction = plan.Maximize
	if err := r.resolveTasks(); err != nil {
		t.Fatal(err)
	}
	for i, ti := range r.tasks {
		if want := e.Tasks[i].Direction == plan.Minimize; ti.Minimize != want || ti.Name != e.Tasks[i].Name {
			t.Errorf("task %s: minimize %v, want %v (the plan says %s)", ti.Name, ti.Minimize, want, e.Tasks[i].Direction)
		}
	}
}
