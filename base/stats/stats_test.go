package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Means, sample standard deviations and t intervals against values worked
// by hand: for {1, 2, 3}, mean 2, sd 1, half-width t(0.975, 2)/√3 =
// 4.3027/1.7321 = 2.4841.
func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		xs             []float64
		n              int
		mean, sd, half float64
	}{
		{xs: []float64{1, 2, 3}, n: 3, mean: 2, sd: 1, half: 2.4841},
		// sd √(((-1.5)²+(-0.5)²+0.5²+1.5²)/3) = √(5/3) = 1.29099;
		// half 3.1824 · 1.29099 / 2 = 2.05422.
		{xs: []float64{2, 3, 4, 5}, n: 4, mean: 3.5, sd: 1.29099, half: 2.05422},
		// Two seeds: sd |a-b|/√2 = 0.70711, half 12.7062 · 0.70711/√2 = 6.3531.
		{xs: []float64{0, 1}, n: 2, mean: 0.5, sd: 0.70711, half: 6.3531},
		{xs: []float64{4, 4, 4}, n: 3, mean: 4, sd: 0, half: 0},
	} {
		s := Summarize(c.xs)
		if s.N != c.n || !near(s.Mean, c.mean, 1e-9) || !near(s.SD, c.sd, 1e-5) ||
			!near(s.High-s.Mean, c.half, 1e-4) || !near(s.Mean-s.Low, c.half, 1e-4) || !s.Interval() {
			t.Errorf("%v: %+v, want n %d mean %g sd %g half-width %g", c.xs, s, c.n, c.mean, c.sd, c.half)
		}
	}
	// One value, with rounding noise (0.1 + 0.2 at run time is
	// 0.30000000000000004): no spread.
	a, b := 0.1, 0.2
	if s := Summarize([]float64{0.3, a + b, 0.3}); s.SD != 0 || s.Low != s.High {
		t.Errorf("rounding noise: %+v", s)
	}
	one := Summarize([]float64{7})
	if one.N != 1 || one.Mean != 7 || one.Interval() || one.IntervalText() != "n=1, no interval" {
		t.Errorf("one seed: %+v %q", one, one.IntervalText())
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("no seeds: not the zero summary")
	}
}

// The quantiles are the table's at whole df, interpolated in 1/df between,
// and tend to the normal's; the fractional values are t(0.975, df) worked
// out by integrating Student's density (3.5747 at 2.5, 2.3330 at 7.5,
// 2.0086 at 50, 1.9719 at 200), which the interpolation meets or
// exceeds by the documented margins.
func TestT975(t *testing.T) {
	for _, c := range []struct{ df, want, tol float64 }{
		{1, 12.7062, 0}, {0.5, 12.7062, 0}, {2, 4.3027, 0}, {4, 2.7764, 0}, {10, 2.2281, 0}, {30, 2.0423, 0}, {120, 1.9799, 0},
		{2.5, 3.5747, 0.06}, {7.5, 2.3330, 0.001}, {50, 2.0086, 0.001}, {200, 1.9719, 0.001}, {1e9, 1.959964, 1e-6},
	} {
		got := T975(c.df)
		if !near(got, c.want, c.tol+1e-9) || got < c.want-1e-4 {
			t.Errorf("T975(%g) = %.5f, want %.4f (+%g)", c.df, got, c.want, c.tol)
		}
	}
	// Monotone: more degrees of freedom, a smaller quantile.
	prev := math.Inf(1)
	for df := 1.0; df < 300; df += 0.25 {
		if q := T975(df); q > prev {
			t.Fatalf("T975 rises at df %g: %g > %g", df, q, prev)
		} else {
			prev = q
		}
	}
}

// Welch's interval for b - a, worked by hand: a = {1, 2, 3} (mean 2, var
// 1), b = {4, 5, 6, 7} (mean 5.5, var 5/3): va = 1/3, vb = 5/12, se =
// √0.75 = 0.86603; df = 0.75² / ((1/3)²/2 + (5/12)²/3) = 0.5625 /
// 0.113426 = 4.9592; t(0.975, 4.9592) = 2.7764 - 0.96708 · 0.2058 =
// 2.5774 (4 and 5 interpolated in 1/df); half-width 2.2321.
func TestWelch(t *testing.T) {
	a, b := Summarize([]float64{1, 2, 3}), Summarize([]float64{4, 5, 6, 7})
	d, ok := Welch(a, b)
	if !ok || !near(d.Diff, 3.5, 1e-9) || !near(d.DF, 4.9592, 1e-4) || !near(d.High-d.Diff, 2.2321, 1e-4) || !d.Differs() {
		t.Errorf("Welch = %+v %v", d, ok)
	}
	// Overlapping arms: the interval holds zero, no mark.
	d, ok = Welch(Summarize([]float64{1, 2, 3}), Summarize([]float64{1.5, 2.5, 3.5}))
	if !ok || d.Differs() || d.Low >= 0 || d.High <= 0 {
		t.Errorf("overlapping: %+v", d)
	}
	// One seed in either arm: a difference, no interval, no mark.
	d, ok = Welch(Summarize([]float64{1}), b)
	if ok || d.Diff != 4.5 || d.Differs() {
		t.Errorf("one seed: %+v %v", d, ok)
	}
	// Both arms constant: the difference is exact.
	d, ok = Welch(Summarize([]float64{2, 2}), Summarize([]float64{3, 3}))
	if !ok || d.Low != 1 || d.High != 1 || !d.Differs() {
		t.Errorf("constant: %+v", d)
	}
	d, _ = Welch(Summarize([]float64{2, 2}), Summarize([]float64{2, 2}))
	if d.Differs() {
		t.Errorf("equal constants differ: %+v", d)
	}
}
