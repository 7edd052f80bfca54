package runcompare

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

func screenedPlan() *plan.Plan {
	return &plan.Plan{Name: "x", Variants: []*plan.Variant{{
		Name:    "default",
		Envs:    []*plan.Environment{{Name: "tiny", GPUs: 2}},
		Roles:   []*plan.Role{{Name: "proposer", Kind: "proposer"}, {Name: "builder", Kind: "builder"}, {Name: "critic", Kind: "critic"}},
		Critics: []*plan.Critic{{Name: "screen"}},
		Loops:   []*plan.Loop{{Name: "policy", Kind: "rl", Critic: "screen", Routes: true, Builder: "builder"}},
		Phases:  []*plan.Phase{{Name: "rl.policy", Kind: plan.PhaseRL, RL: &plan.RLBody{Loop: "policy"}}},
	}}}
}

// Each measured figure replaces its assumption, marked with the run; one
// the run has no data for (nothing judged, no timed run) keeps the spec's
// value and says why.
func TestLearn(t *testing.T) {
	tot := &runtime.Totals{Measured: &runtime.Measured{
		Roles: map[string]*runtime.MeasuredRole{
			"proposer": {Calls: 10, TokensIn: 5000, TokensOut: 1000},
			"builder":  {Calls: 10, TokensIn: 3000, TokensOut: 2000, Built: 10, BuildFailed: 2},
		},
		Loops: map[string]*runtime.MeasuredLoop{"policy": {Judged: 0}},
	}}
	tim := &runtime.Timing{Roles: map[string]*runtime.RoleTiming{"proposer": {Calls: 4, SecondsPerCall: 1.5}}}
	got := Learn(screenedPlan(), "", tot, tim, "R1")
	for name, want := range map[string]float64{
		"role.builder.build_failures": 0.2,
		"role.proposer.tokens_in":     500,
		"role.proposer.tokens_out":    100,
		"role.builder.tokens_out":     200,
		"role.proposer.seconds":       1.5,
	} {
		l, ok := got[name]
		if !ok || l.Missing != "" || l.Value != plan.Exact(want) || l.From != "run R1" {
			t.Errorf("%s = %+v, want %g from run R1", name, l, want)
		}
	}
	for _, name := range []string{"critic.screen.routed_share", "environment.tiny.hours_per_run", "role.critic.tokens_in", "role.builder.seconds"} {
		if l := got[name]; !strings.HasPrefix(l.Missing, "run R1 ") {
			t.Errorf("%s = %+v, want missing data that names the run", name, l)
		}
	}
}

func TestSameShape(t *testing.T) {
	a, b := screenedPlan(), screenedPlan()
	if err := SameShape(a, b, ""); err != nil {
		t.Fatal(err)
	}
	b.Variants[0].Loops[0].Name = "other"
	err := SameShape(a, b, "")
	if err == nil || !strings.Contains(err.Error(), "loops") {
		t.Fatalf("err = %v, want the loops named", err)
	}
}
