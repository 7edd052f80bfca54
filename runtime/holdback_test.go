package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// grpoThenEval is critic-screened GRPO until the budget is spent, then
// Avg@2 on the holdout task, under a GPU-hour cap alone: 10 real runs of
// 0.5 GPU-hours. The loop's phase holds back the evaluation's 2 runs
// (1 GPU-hour and its dollars), as the compiler decides.
func grpoThenEval(holdBack *plan.HoldBack) *plan.Plan {
	p := criticGRPOPlan()
	v := p.Variants[0]
	v.Budget = plan.Budget{GPUHours: 5}
	v.Phases[0].HoldBack = holdBack
	v.Phases = append(v.Phases, &plan.Phase{Name: "evaluation", Kind: plan.PhaseEvaluation, Evaluation: evalBody(),
		Calls: plan.Calls{RealRuns: runs(2)}, HoldBack: &plan.HoldBack{}})
	p.Name = "mini-grpo-eval"
	return p
}

func phaseRuns(t *testing.T, dir, id string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, r := range journalRuns(t, dir, id) {
		n[r.Reservation.Phase]++
	}
	return n
}

// A loop that spends the budget cannot spend what the plan holds back for
// the phases after it: the GPU-hours of the evaluation's runs stay free,
// and the evaluation makes all its runs. (Without the hold-back the loop
// took every GPU-hour and the evaluation made none, and the run said
// finished.)
func TestLoopLeavesTheEvaluationItsGPUHours(t *testing.T) {
	dir := t.TempDir()
	res, err := runPlan(t, grpoThenEval(&plan.HoldBack{GPUHours: 1}), dir, "h", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	n := phaseRuns(t, dir, "h")
	if n["evaluation"] != 2 || n["policy"] != 8 {
		t.Errorf("real runs by phase %v, want policy 8 (until the budget less the hold-back) and evaluation 2", n)
	}
	if res.State != StateFinished || len(res.Cuts) > 0 {
		t.Errorf("state %s %v: a loop that spends the budget ends at it by design, and the evaluation got its runs", res.State, res.Cuts)
	}
}

// When a cap does shrink a phase, the run says so: state stopped_at_cap,
// with the phase and the cap, in the result and in status; the
// evaluation's figures do not read Avg@2.
func TestCapCutIsReported(t *testing.T) {
	dir := t.TempDir()
	// Half a run's GPU-hours held back: the evaluation gets 1 of its 2.
	p := grpoThenEval(&plan.HoldBack{GPUHours: 0.5})
	res, err := runPlan(t, p, dir, "c", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := phaseRuns(t, dir, "c"); n["evaluation"] != 1 {
		t.Fatalf("real runs by phase %v, want evaluation 1", n)
	}
	if res.State != StateStoppedAtCap || len(res.Cuts) != 1 || res.Cuts[0].Phase != "evaluation" ||
		!strings.Contains(res.Cuts[0].Reason, "the GPU-hour cap of 5 leaves no room for 0.5 GPU-hours more") {
		t.Fatalf("state %s, cuts %+v; want stopped_at_cap cutting the evaluation at the GPU-hour cap", res.State, res.Cuts)
	}
	st, err := ReadStatus(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateStoppedAtCap || len(st.Cuts) != 1 || !strings.Contains(st.CapStop, "phase evaluation got fewer real runs") {
		t.Errorf("status %s %q %+v", st.State, st.CapStop, st.Cuts)
	}
	if len(st.Evaluation) != 1 || st.Evaluation[0].AvgLabel() != "Avg@1 of 2 asked" {
		t.Errorf("evaluation figures %+v, want them labelled Avg@1 of 2 asked", st.Evaluation)
	}
}
