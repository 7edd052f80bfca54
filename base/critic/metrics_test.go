package critic

import (
	"math"
	"strings"
	"testing"
)

func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %v, want %g", what, show(got), want)
	}
}

func show(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func f(v float64) *float64 { return &v }

// threeWay are five examples judged by a 3-way critic with 4 votes each.
// With all 4 votes (majority; the worst of tied labels):
//
//	E1 improve; improve x3, tie     -> improve, u = 1 - 3/4 = 0.25, wins 0.75
//	E2 improve; tie x2, lose, improve -> tie,   u = 0.5, wins 0.25
//	E3 lose; improve x2, lose x2    -> lose (tied, worst), u = 0.5, wins 0.5
//	E4 tie; improve x4              -> improve, u = 0, wins 1
//	E5 lose; lose x3, "??" (= lose) -> lose, u = 0, wins 0
func threeWay() []Example {
	return []Example{
		{Label3: Improve, Votes: []string{Improve, Improve, Improve, Tie}},
		{Label3: Improve, Votes: []string{Tie, Tie, Lose, Improve}},
		{Label3: Lose, Votes: []string{Improve, Improve, Lose, Lose}},
		{Label3: Tie, Votes: []string{Improve, Improve, Improve, Improve}},
		{Label3: Lose, Votes: []string{Lose, Lose, Lose, "??"}},
	}
}

func TestEvaluateThreeWay(t *testing.T) {
	m, err := Evaluate(Space3, threeWay(), 4)
	if err != nil {
		t.Fatal(err)
	}
	// Improve accuracy: E1, E3, E5 right (E2 missed, E4 false) = 3/5.
	// Dir-3: E1, E3, E5 = 3/5.
	// F1: TP 1 (E1), FP 1 (E4), FN 1 (E2): 2 / (2 + 1 + 1) = 0.5.
	near(t, "improve accuracy", f(m.ImproveAccuracy), 0.6)
	near(t, "dir3", f(m.Dir3), 0.6)
	near(t, "f1", m.F1, 0.5)
	if m.Ladder5 != nil || m.N5 != 0 {
		t.Errorf("a 3-way critic has a 5-ladder: %v", show(m.Ladder5))
	}
	// AUROC of the win share: positives E1 0.75, E2 0.25; negatives E3
	// 0.5, E4 1, E5 0. E1 beats E3 and E5 (2), E2 beats E5 (1): 3/6.
	near(t, "auroc", m.AUROC, 0.5)
	// Confidence 1 - u: right E1 0.75, E3 0.5, E5 1; wrong E2 0.5, E4 1.
	// 0.75 beats 0.5 (1); 0.5 ties 0.5 (0.5); 1 beats 0.5 (1) and ties 1
	// (0.5): 3/6.
	near(t, "confidence auroc", m.ConfidenceAUROC, 0.5)

	// The first vote only: E1 improve (right), E2 tie (wrong), E3 improve
	// (wrong both ways), E4 improve (wrong), E5 lose (right).
	m1, err := Evaluate(Space3, threeWay(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// Improve accuracy 2/5; Dir-3 2/5; F1: TP 1, FP 2 (E3, E4), FN 1 (E2):
	// 2 / 5 = 0.4. AUROC: wins E1 1, E2 0 against E3 1, E4 1, E5 0:
	// E1 ties E3, E4 (0.5 + 0.5) and beats E5 (1); E2 ties E5 (0.5):
	// 2.5/6.
	near(t, "k=1 improve accuracy", f(m1.ImproveAccuracy), 0.4)
	near(t, "k=1 dir3", f(m1.Dir3), 0.4)
	near(t, "k=1 f1", m1.F1, 0.4)
	near(t, "k=1 auroc", m1.AUROC, 2.5/6)
}

func TestEvaluateFiveWay(t *testing.T) {
	ex := []Example{
		// SmallWin x2, BigWin: SmallWin; the ladder and direction right.
		{Label3: Improve, Label5: SmallWin, Votes: []string{SmallWin, SmallWin, BigWin}},
		// One vote each for MediumWin, BigWin, Tie: the worst, Tie; wrong.
		{Label3: Improve, Label5: BigWin, Votes: []string{MediumWin, BigWin, Tie5}},
		// A dropped parent (no 5-way label): Lose, right in direction.
		{Label3: Lose, Votes: []string{Lose5, Lose5, Tie5}},
		// A small improvement the ladder calls Tie: Tie is right on the
		// ladder, wrong in direction.
		{Label3: Improve, Label5: Tie5, Votes: []string{Tie5, Tie5, Tie5}},
	}
	m, err := Evaluate(Space5, ex, 3)
	if err != nil {
		t.Fatal(err)
	}
	// 5-Ladder over the 3 examples with a 5-way label: 2/3.
	// Dir-3 and Improve accuracy: examples 1 and 3 = 2/4.
	// F1: TP 1, FP 0, FN 2: 2 / 4 = 0.5.
	if m.N5 != 3 {
		t.Errorf("ladder examples %d, want 3", m.N5)
	}
	near(t, "ladder5", m.Ladder5, 2.0/3)
	near(t, "dir3", f(m.Dir3), 0.5)
	near(t, "improve accuracy", f(m.ImproveAccuracy), 0.5)
	near(t, "f1", m.F1, 0.5)
}

func TestRoute(t *testing.T) {
	rs, err := Route(Space3, threeWay(), 4, []float64{0, 0.25, 0.5, 0.6})
	if err != nil {
		t.Fatal(err)
	}
	// u: E1 0.25, E2 0.5, E3 0.5, E4 0, E5 0; errors (Dir-3): E2, E4.
	want := []struct {
		routed, routedErrors int
		recall, share        float64
	}{
		{5, 2, 1, 1},     // T = 0: everything
		{3, 1, 0.5, 0.6}, // T = 0.25: E1 (u = T routes), E2, E3
		{2, 1, 0.5, 0.4}, // T = 0.5: E2, E3
		{0, 0, 0, 0},     // T = 0.6: nothing
	}
	for i, w := range want {
		r := rs[i]
		if r.Errors != 2 || r.Routed != w.routed || r.RoutedErrors != w.routedErrors {
			t.Errorf("T=%g: errors %d routed %d routed errors %d; want 2, %d, %d", r.T, r.Errors, r.Routed, r.RoutedErrors, w.routed, w.routedErrors)
		}
		near(t, "error recall", r.ErrorRecall, w.recall)
		near(t, "routed share", f(r.RoutedShare), w.share)
	}
	// At 16 votes, 4 dissenting is u = 0.25: routed at T = 0.25 (the
	// paper: "at most 3 of 16 disagree" is kept).
	votes := make([]string, 16)
	for i := range votes {
		votes[i] = Improve
		if i < 4 {
			votes[i] = Lose
		}
	}
	r, _ := Route(Space3, []Example{{Label3: Improve, Votes: votes}}, 16, []float64{0.25})
	if r[0].Routed != 1 {
		t.Error("4 of 16 dissenting votes were not routed at T = 0.25")
	}
}

// TestEdgeCases: no positives leaves F1 and AUROC undefined, not 0; no
// errors leaves error recall undefined; scores all tied give AUROC 0.5.
func TestEdgeCases(t *testing.T) {
	ex := []Example{
		{Label3: Lose, Votes: []string{Lose}},
		{Label3: Tie, Votes: []string{Tie}},
	}
	m, err := Evaluate(Space3, ex, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.F1 != nil || m.AUROC != nil || m.ConfidenceAUROC != nil {
		t.Errorf("no positives: f1 %v auroc %v confidence auroc %v; want all undefined", show(m.F1), show(m.AUROC), show(m.ConfidenceAUROC))
	}
	near(t, "dir3", f(m.Dir3), 1)
	r, _ := Route(Space3, ex, 1, []float64{0.25})
	if r[0].ErrorRecall != nil || r[0].Errors != 0 {
		t.Errorf("no errors: recall %v", show(r[0].ErrorRecall))
	}
	// Predicting improve where nothing improved: F1 = 0 / (0 + 2 + 0) = 0.
	m, _ = Evaluate(Space3, []Example{{Label3: Lose, Votes: []string{Improve}}, {Label3: Tie, Votes: []string{Improve}}}, 1)
	near(t, "f1 with false positives only", m.F1, 0)

	near(t, "auroc, all tied", AUROC([]float64{0.5, 0.5, 0.5, 0.5}, []bool{true, false, true, false}), 0.5)
	// Positives 0.35, 0.8; negatives 0.1, 0.4: 0.35 beats 0.1, 0.8 beats
	// both: 3/4.
	near(t, "auroc", AUROC([]float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}), 0.75)
	// A tie across classes counts half: pos 0.5, 0.9; neg 0.5, 0.1:
	// (0.5 + 1) + (1 + 1) = 3.5 of 4.
	near(t, "auroc with a tie", AUROC([]float64{0.5, 0.9, 0.5, 0.1}, []bool{true, true, false, false}), 0.875)
	if AUROC(nil, nil) != nil {
		t.Error("AUROC of nothing is defined")
	}
}

func TestRefuses(t *testing.T) {
	ok := []Example{{Label3: Improve, Votes: []string{Improve, Tie}}}
	for _, c := range []struct {
		space string
		ex    []Example
		k     int
		want  string
	}{
		{"4way", ok, 1, "label space"},
		{Space3, ok, 0, "k = 0"},
		{Space3, ok, 3, "fewer than k = 3"},
		{Space3, ok, MaxVotes + 1, "votes"},
		{Space3, nil, 1, "no examples"},
		{Space3, []Example{{Label3: "up", Votes: []string{Tie}}}, 1, `label "up"`},
		{Space3, []Example{{Label3: Tie, Label5: "Huge", Votes: []string{Tie}}}, 1, `label "Huge"`},
	} {
		if _, err := Evaluate(c.space, c.ex, c.k); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Evaluate(%s, k=%d) = %v, want an error with %q", c.space, c.k, err, c.want)
		}
	}
	for _, th := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := Route(Space3, ok, 1, []float64{th}); err == nil {
			t.Errorf("threshold %g was accepted", th)
		}
	}
}
