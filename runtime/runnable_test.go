package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

func TestRunnableNeedsLearningRate(t *testing.T) {
	p := &plan.Plan{Variants: []*plan.Variant{{Executor: plan.Executor{Concurrency: 1},
		Loops: []*plan.Loop{{Name: "policy", Kind: "rl", Split: "train", Proposer: "p", RolloutEvery: 1, StatesPerStep: 1, ProposalsPerState: 2}}}}}
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
		"evaluation k":          func(v *plan.Variant) { v.Evaluation.K = 0 },
		"evaluation states":     func(v *plan.Variant) { v.Evaluation.States = 0 },
		"calibration normalize": func(v *plan.Variant) { v.Calibration.Normalize = "" },
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

// Calibration rounds are named by their RL phase: a round no RL phase names,
// or a name that is no later calibration phase, is refused rather than run
// by a guess at its loop.
func TestRunnableRefusesUnnamedCalibration(t *testing.T) {
	for name, mut := range map[string]func(v *plan.Variant){
		"round named by no rl phase": func(v *plan.Variant) { v.Phases[1].Calibrations = v.Phases[1].Calibrations[:1] },
		"name of no phase":           func(v *plan.Variant) { v.Phases[1].Calibrations[1] = "calibration_9" },
		"name of a non-calibration":  func(v *plan.Variant) { v.Phases[1].Calibrations[1] = "evaluation" },
		"name of an earlier phase":   func(v *plan.Variant) { v.Phases[1].Calibrations[1] = "seed_records" },
		"named by a non-rl phase": func(v *plan.Variant) {
			v.Phases[4].Calibrations = []string{"calibration_2"}
		},
	} {
		p := lm2lmPlan()
		mut(p.Variants[0])
		if err := runnable(p); err == nil || !strings.Contains(err.Error(), "calibration") {
			t.Errorf("%s: runnable = %v, want a refusal", name, err)
		}
	}
}
