package runtime

import (
	"strings"
	"testing"

	"assay/compiler/plan"
)

func TestRunnableNeedsLearningRate(t *testing.T) {
	p := &plan.Plan{Variants: []*plan.Variant{{Loops: []*plan.Loop{{Name: "policy", Kind: "rl"}}}}}
	err := runnable(p)
	if err == nil || !strings.Contains(err.Error(), `loop "policy" has no learning_rate`) {
		t.Fatalf("runnable = %v, want a learning_rate error", err)
	}
	p.Variants[0].Loops[0].LearningRate = 0.5
	if err := runnable(p); err != nil {
		t.Fatalf("runnable = %v, want nil", err)
	}
	evo := &plan.Plan{Variants: []*plan.Variant{{Loops: []*plan.Loop{{Name: "evolve", Kind: "evolution"}}}}}
	if err := runnable(evo); err != nil {
		t.Fatalf("evolution loop needs no learning rate: %v", err)
	}
}
