package runtime

import (
	"fmt"
	"slices"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// TestAuditPicks: the floor of share x eligible candidates are picked,
// never an ineligible one, the same ones whatever order the batch comes
// in, and each stands for eligible / picked.
func TestAuditPicks(t *testing.T) {
	keys := []string{"s/0", "s/1", "s/2", "s/3", "s/4", "s/5", "s/6"}
	eligible := []bool{true, false, true, true, true, false, true} // 5 eligible
	picks, w := auditPicks(7, 0.5, keys, eligible)
	n := 0
	for i, p := range picks {
		if p {
			n++
			if !eligible[i] {
				t.Errorf("picked %s, which is not eligible", keys[i])
			}
		}
	}
	if n != 2 || w != 2.5 {
		t.Fatalf("%d picks standing for %g each, want floor(0.5 x 5) = 2 standing for 5/2", n, w)
	}
	// Reversed, the same candidates are picked.
	rk, re := slices.Clone(keys), slices.Clone(eligible)
	slices.Reverse(rk)
	slices.Reverse(re)
	rp, _ := auditPicks(7, 0.5, rk, re)
	for i := range keys {
		if picks[i] != rp[len(keys)-1-i] {
			t.Fatalf("the order of the batch changed the picks: %v and %v", picks, rp)
		}
	}
	if p, w := auditPicks(7, 0.1, keys, eligible); slices.Contains(p, true) || w != 0 {
		t.Errorf("floor(0.1 x 5) = 0 picks, got %v", p)
	}
}

// TestAuditedErrorRecall: routed errors count once, an audited error
// stands for the unrouted candidates of its batch. Two routed errors, one
// routed right verdict and one audited error standing for 4: error
// recall 2 / (2 + 4) = 1/3, where the routed candidates alone say 1.
func TestAuditedErrorRecall(t *testing.T) {
	m := newMeasured()
	m.critic("policy", critPoint{errored: true, routed: true})
	m.critic("policy", critPoint{errored: true, routed: true})
	m.critic("policy", critPoint{routed: true, improved: true})
	if got := m.snapshot().Loops["policy"].ErrorRecall; got != 1 {
		t.Fatalf("routed candidates alone: error recall %g, want 1 by construction", got)
	}
	m.critic("policy", critPoint{errored: true, audited: true, weight: 4})
	m.critic("policy", critPoint{audited: true, weight: 4})
	l := m.snapshot().Loops["policy"]
	if l.ErrorRecall != round6(1.0/3) || l.CriticAudited != 2 || l.CriticErrorsAudited != 1 || l.CriticErrors != 3 || l.CriticErrorsRouted != 2 {
		t.Errorf("figures %+v, want error recall 0.333333 from 2 audited, 1 of them wrong", l)
	}
}

// TestAuditShareRuns: with audit_share 1 every judged candidate the screen
// did not route gets a real run too, so the real runs are the judged
// candidates and the error recall is measured on all of them; without it,
// only the routed ones run.
func TestAuditShareRuns(t *testing.T) {
	run := func(share float64) (*Result, *MeasuredLoop) {
		p := criticGRPOPlan()
		v := p.Variants[0]
		l := v.Loops[0]
		l.UntilBudget, l.Steps, l.RunSteps, l.AuditShare = false, plan.Exact(3), 3, share
		v.Phases[0].RL.Steps = plan.Exact(3)
		v.Budget = plan.Budget{RealRuns: 1000}
		id := fmt.Sprintf("a%g", share)
		res, err := runPlan(t, p, t.TempDir(), id, &testLoader{trainer: newFakeTrainer()}, false)
		if err != nil {
			t.Fatal(err)
		}
		return res, res.Totals.Measured.Loops["policy"]
	}
	res, l := run(0)
	if res.Totals.RealRuns != l.Routed || l.CriticAudited != 0 {
		t.Fatalf("no audit: %d real runs, %d routed, %d audited", res.Totals.RealRuns, l.Routed, l.CriticAudited)
	}
	res, l = run(1)
	if res.Totals.RealRuns != l.Judged || l.CriticAudited != l.Judged-l.Routed || l.CriticAudited == 0 {
		t.Fatalf("audit 1: %d real runs, %d judged, %d routed, %d audited", res.Totals.RealRuns, l.Judged, l.Routed, l.CriticAudited)
	}
	if l.CriticErrors > 0 && l.ErrorRecall != round6(float64(l.CriticErrorsRouted)/float64(l.CriticErrors)) {
		t.Errorf("audit 1: error recall %g, want %d routed of %d errors", l.ErrorRecall, l.CriticErrorsRouted, l.CriticErrors)
	}
}
