package estimate

import (
	"fmt"
	"testing"
)

// The critic-only step sweep (seed 002, figure 5 left): one variant per
// step count, each training on 256 candidates a step judged by 16 critic
// votes with no real run, and evaluating its policy against Base.
func TestAcceptanceCriticOnlySteps(t *testing.T) {
	p, r := loadSpec(t, "critic-only-steps")
	steps := []float64{20, 40, 80, 120, 160}
	if len(p.Variants) != len(steps) || len(r.Variants) != len(steps) {
		t.Fatalf("variants = %d in the plan, %d in the report; want %d", len(p.Variants), len(r.Variants), len(steps))
	}
	var critic float64
	for i, v := range r.Variants {
		if want := fmt.Sprintf("steps=%g", steps[i]); v.Name != want {
			t.Errorf("variant %d is %s, want %s", i, v.Name, want)
		}
		exact(t, v.Name+" loops.policy.steps", v.Loops["policy"].Steps, steps[i])
		exact(t, v.Name+" roles.critic.calls", v.Roles["critic"].Calls, steps[i]*256*16)
		// Training makes no real run: every one is the evaluation's.
		exact(t, v.Name+" totals.real_runs", v.Totals.RealRuns, 232)
		exact(t, v.Name+" updates.policy.gpu_hours", v.Loops["policy"].Updates.GPUHours, steps[i]*8*0.25)
		critic += steps[i] * 256 * 16
	}
	exact(t, "roles.critic.calls", r.Roles["critic"].Calls, critic)
	if critic != 1720320 {
		t.Errorf("critic calls over the sweep = %v, want 420 x 256 x 16 = 1,720,320", critic)
	}
}
