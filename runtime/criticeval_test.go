package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

func criticExamples(n int) []CriticExample {
	ex := make([]CriticExample, n)
	for i := range ex {
		ex[i] = CriticExample{Env: "tiny", Task: "t0", Parent: seedParent(),
			Child: plugins.Proposal{ID: "c", Text: "raise lr", Mechanism: "optimizer", Edits: map[string]string{"learning_rate": []string{"0.01", "0.03", "0.1"}[i%3]}}}
	}
	return ex
}

// TestCriticEvalCallsAndResumes: every vote is one call of the critic's
// role through its plugin; the same id again answers from the journal
// without calling.
func TestCriticEvalCallsAndResumes(t *testing.T) {
	dir := t.TempDir()
	l := &testLoader{trainer: newFakeTrainer(), failAt: map[int64]bool{}}
	ex := criticExamples(3)
	res, err := CriticEval(context.Background(), evolvePlan(), Options{ID: "ce", Dir: dir, Plugins: l}, []string{"screen"}, ex)
	if err != nil {
		t.Fatal(err)
	}
	votes := res.Votes["screen"]
	if len(votes) != 3 || len(votes[0]) != 5 {
		t.Fatalf("votes %v, want 3 examples x 5 votes", votes)
	}
	for _, vs := range votes {
		for _, v := range vs {
			if payload.LabelRank(payload.Labels3, v) < 0 {
				t.Fatalf("vote %q is not a 3-way label", v)
			}
		}
	}
	if n := l.shared.Load(); n != 15 {
		t.Fatalf("%d critic calls, want 3 x 5", n)
	}
	again, err := CriticEval(context.Background(), evolvePlan(), Options{ID: "ce", Dir: dir, Plugins: l, Resume: true}, []string{"screen"}, ex)
	if err != nil {
		t.Fatal(err)
	}
	if n := l.shared.Load(); n != 15 {
		t.Errorf("the resumed evaluation called the critic %d more times", n-15)
	}
	for i := range votes {
		for v := range votes[i] {
			if again.Votes["screen"][i][v] != votes[i][v] {
				t.Fatalf("resumed vote %d/%d = %q, journaled %q", i, v, again.Votes["screen"][i][v], votes[i][v])
			}
		}
	}
	if _, err := CriticEval(context.Background(), evolvePlan(), Options{ID: "ce2", Dir: dir, Plugins: l}, []string{"nope"}, ex); err == nil {
		t.Error("an unknown critic was evaluated")
	}
}

// TestCriticEvalHoldsTheDollarCap: each call holds its most before it is
// sent, so a cap below one call's hold makes no call, and the evaluation
// stops with the cap's error.
func TestCriticEvalHoldsTheDollarCap(t *testing.T) {
	p := evolvePlan()
	v := p.Variants[0]
	for _, ro := range v.Roles {
		if ro.Name == "critic" {
			// A call holds (20000 x 1 + 2000 x 2) / 1e6 = $0.024.
			ro.TokensIn, ro.TokensOut, ro.PriceIn, ro.PriceOut = plan.Exact(20000), plan.Exact(2000), 1, 2
		}
	}
	v.Budget.USD = 0.02
	l := &testLoader{trainer: newFakeTrainer(), failAt: map[int64]bool{}}
	res, err := CriticEval(context.Background(), p, Options{ID: "cap", Dir: t.TempDir(), Plugins: l}, []string{"screen"}, criticExamples(3))
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want the dollar cap", err)
	}
	if l.shared != nil && l.shared.Load() != 0 {
		t.Errorf("%d calls made under a cap below one call's hold", l.shared.Load())
	}
	if res == nil || res.Totals.USD > 0.02 {
		t.Errorf("spent %+v, more than the cap", res)
	}
}

// TestCriticEvalOwnsItsJournal: an evaluation's journal answers only the
// same examples, a run's journal is no evaluation's, and assay resume
// does not run a plan in an evaluation's journal.
func TestCriticEvalOwnsItsJournal(t *testing.T) {
	dir := t.TempDir()
	l := &testLoader{trainer: newFakeTrainer()}
	ctx := context.Background()
	if _, err := CriticEval(ctx, evolvePlan(), Options{ID: "ce", Dir: dir, Plugins: l}, []string{"screen"}, criticExamples(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := CriticEval(ctx, evolvePlan(), Options{ID: "ce", Dir: dir, Plugins: l, Resume: true}, []string{"screen"}, criticExamples(3)); err == nil || !strings.Contains(err.Error(), "evaluated other pairs") {
		t.Errorf("other examples under the same id: %v", err)
	}
	if _, err := runPlan(t, evolvePlan(), dir, "ce", l, true); err == nil || !strings.Contains(err.Error(), "is a critic evaluation") {
		t.Errorf("resuming an evaluation as a run: %v", err)
	}
	if _, err := runPlan(t, evolvePlan(), dir, "r", l, false); err != nil {
		t.Fatal(err)
	}
	if _, err := CriticEval(ctx, evolvePlan(), Options{ID: "r", Dir: dir, Plugins: l, Resume: true}, []string{"screen"}, criticExamples(2)); err == nil || !strings.Contains(err.Error(), "not a critic evaluation") {
		t.Errorf("an evaluation in a run's journal: %v", err)
	}
}
