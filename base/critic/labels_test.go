package critic

import (
	"math"
	"slices"
	"testing"
)

// TestLadderHandComputed checks the 5-way rule against labels worked out
// by hand; sigma is the population deviation (divided by n).
func TestLadderHandComputed(t *testing.T) {
	cases := []struct {
		name   string
		deltas []float64
		want   []string
	}{{
		// mu = 0.25/8 = 0.03125; sum of squared deviations 0.143689,
		// /8 = 0.017961, sigma = 0.134018.
		// 0.30: d > 0.25                              BigWin
		// 0.12: z = 0.08875/0.134018 = 0.662, d > 0.10 MediumWin
		// 0.06: z = 0.02875/0.134018 = 0.215 > 0.2     SmallWin
		// 0.03: z = -0.009, d >= 0                    Tie
		// 0.00: z = -0.233, d >= 0                    Tie
		// -0.01: z = -0.04125/0.134018 = -0.308       Lose
		// -0.05: z = -0.606                           Lose
		// -0.20: z = -1.726                           Lose
		name:   "absolute cut-offs",
		deltas: []float64{0.30, 0.12, 0.06, 0.03, 0.0, -0.01, -0.05, -0.20},
		want:   []string{BigWin, MediumWin, SmallWin, Tie5, Tie5, Lose5, Lose5, Lose5},
	}, {
		// mu = 0.15/6 = 0.025; deviations 0.055 0.025 0.015 -0.015 -0.035
		// -0.045, squares sum 0.00735, /6 = 0.001225, sigma = 0.035.
		// 0.08: z = 0.055/0.035 = 1.571 > 1 (d <= 0.10)  MediumWin
		// 0.05: z = 0.714 > 0.2                          SmallWin
		// 0.04: z = 0.429 > 0.2                          SmallWin
		// 0.01: z = -0.429, d >= 0                       Tie
		// -0.01: z = -1.0                                Lose
		// -0.02: z = -1.286                              Lose
		name:   "z cut-offs",
		deltas: []float64{0.08, 0.05, 0.04, 0.01, -0.01, -0.02},
		want:   []string{MediumWin, SmallWin, SmallWin, Tie5, Lose5, Lose5},
	}, {
		// mu = -0.18/6 = -0.03; deviations 0.06 0.05 0.04 0 -0.03 -0.12,
		// squares sum 0.023, /6 = 0.0038333, sigma = 0.061914.
		// 0.03, 0.02, 0.01: z = 0.969, 0.808, 0.646 > 0.2   SmallWin
		// -0.03: z = 0, within [-0.2, 0.2]                   Tie
		// -0.06: z = -0.485                                  Lose
		// -0.15: z = -1.938                                  Lose
		name:   "a loss within 0.2 sigma of the mean is a tie",
		deltas: []float64{0.03, 0.02, 0.01, -0.03, -0.06, -0.15},
		want:   []string{SmallWin, SmallWin, SmallWin, Tie5, Lose5, Lose5},
	}, {
		// mu = 0.23/10 = 0.023; squares 0.031329 + 3 x 0.000169 +
		// 6 x 0.000529 = 0.03501, /10 = 0.003501, sigma = 0.059169.
		// 0.20: z = 0.177/0.059169 = 2.991 > 2 (d <= 0.25)  BigWin
		// 0.01: z = -0.013/0.059169 = -0.220, d >= 0        Tie
		// 0.00: d >= 0                                      Tie
		name:   "z above 2 is a big win",
		deltas: []float64{0.20, 0.01, 0.01, 0.01, 0, 0, 0, 0, 0, 0},
		want:   []string{BigWin, Tie5, Tie5, Tie5, Tie5, Tie5, Tie5, Tie5, Tie5, Tie5},
	}, {
		// mu = -0.09/5 = -0.018; deviations -0.082 -0.072 0.028 0.058
		// 0.068, squares sum 0.02068, /5 = 0.004136, sigma = 0.064312.
		// 0.05: z = 0.068/0.064312 = 1.057 > 1   MediumWin (with the
		//       sample deviation, /4, z would be 0.946: SmallWin)
		// 0.04: z = 0.902 > 0.2                  SmallWin
		// 0.01: z = 0.435 > 0.2                  SmallWin
		// -0.09: z = -1.120; -0.10: z = -1.275   Lose
		name:   "the population deviation",
		deltas: []float64{-0.10, -0.09, 0.01, 0.04, 0.05},
		want:   []string{Lose5, Lose5, SmallWin, SmallWin, MediumWin},
	}, {
		// sigma = 0: z is 0; 0.05 is neither above 0.10 nor z > 0.2: Tie.
		name:   "equal improvements",
		deltas: []float64{0.05, 0.05, 0.05},
		want:   []string{Tie5, Tie5, Tie5},
	}, {
		name:   "equal big improvements",
		deltas: []float64{0.3, 0.3, 0.3},
		want:   []string{BigWin, BigWin, BigWin},
	}}
	for _, c := range cases {
		got, ok := Ladder(c.deltas)
		if !ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: Ladder(%v) = %v, %v; want %v", c.name, c.deltas, got, ok, c.want)
		}
	}
}

// TestLadderDropsParents checks that a parent with fewer than three
// improving children is dropped, whatever its other children.
func TestLadderDropsParents(t *testing.T) {
	for _, ds := range [][]float64{
		nil,
		{0.5, 0.2, -0.1, 0, -0.3}, // two improve
		{0.5, 0.2},
		{0, 0, 0, 0}, // a tie is not an improvement
	} {
		if got, ok := Ladder(ds); ok || got != nil {
			t.Errorf("Ladder(%v) = %v, %v; want the parent dropped", ds, got, ok)
		}
	}
}

func TestLabel3AndRelative(t *testing.T) {
	for _, c := range []struct {
		parent, child float64
		minimize      bool
		want          string
		rel           float64
	}{
		// (1.8 - 2.0) / 2.0 = -0.1, negated for a minimized metric: 0.1.
		{2.0, 1.8, true, Improve, 0.1},
		{2.0, 2.2, true, Lose, -0.1},
		{2.0, 2.0, true, Tie, 0},
		// (0.5 - 0.4) / 0.4 = 0.25.
		{0.4, 0.5, false, Improve, 0.25},
		// A negative parent: (-0.8 - -1.0) / |-1.0| = 0.2.
		{-1.0, -0.8, false, Improve, 0.2},
	} {
		if got := Label3(c.parent, c.child, c.minimize); got != c.want {
			t.Errorf("Label3(%g, %g, %v) = %s, want %s", c.parent, c.child, c.minimize, got, c.want)
		}
		rel, err := Relative(c.parent, c.child, c.minimize)
		if err != nil || math.Abs(rel-c.rel) > 1e-12 {
			t.Errorf("Relative(%g, %g, %v) = %g, %v; want %g", c.parent, c.child, c.minimize, rel, err, c.rel)
		}
	}
	if _, err := Relative(0, 1, false); err == nil {
		t.Error("Relative over a parent metric of 0 did not fail")
	}
	if _, err := Relative(1, math.Inf(1), false); err == nil {
		t.Error("Relative of an infinite metric did not fail")
	}
}
