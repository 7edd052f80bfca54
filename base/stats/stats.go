package stats

import (
	"fmt"
	"math"
	"strconv"
)

// Summary is a figure over n seeds. SD, Low and High are meaningful only
// when Interval() holds (n >= 2).
type Summary struct {
	N    int
	Mean float64
	// SD is the sample standard deviation (divided by n-1).
	SD float64
	// Low and High bound the 95% Student t interval on the mean:
	// mean ± t(0.975, n-1) · sd / √n.
	Low, High float64
}

// Interval reports whether s has a spread and an interval: two seeds or
// more.
func (s Summary) Interval() bool { return s.N >= 2 }

// NoInterval is what a figure from fewer than two seeds shows where its
// interval would be.
const NoInterval = "n=1, no interval"

// Summarize summarizes xs; the zero Summary when xs is empty.
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	s := Summary{N: n, Mean: mean, Low: mean, High: mean}
	if n < 2 {
		return s
	}
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	s.SD = math.Sqrt(v / float64(n-1))
	// Seeds that measured one value, summed in another order, leave
	// rounding noise (1e-18) rather than a spread.
	if s.SD <= 1e-12*math.Abs(mean) {
		s.SD = 0
	}
	h := T975(float64(n-1)) * s.SD / math.Sqrt(float64(n))
	s.Low, s.High = mean-h, mean+h
	return s
}

// Diff is the difference of two arms' means, b - a, with its 95% Welch t
// interval: (mean_b - mean_a) ± t(0.975, df) · √(sd_a²/n_a + sd_b²/n_b),
// df by the Welch–Satterthwaite formula.
type Diff struct {
	Diff      float64
	Low, High float64
	DF        float64
}

// Differs reports whether the interval excludes zero: only then is the
// difference marked.
func (d Diff) Differs() bool { return d.Low > 0 || d.High < 0 }

// Welch is the difference b - a with its interval; ok is false when either
// arm has fewer than two seeds (no interval).
func Welch(a, b Summary) (d Diff, ok bool) {
	if !a.Interval() || !b.Interval() {
		return Diff{Diff: b.Mean - a.Mean}, false
	}
	va, vb := a.SD*a.SD/float64(a.N), b.SD*b.SD/float64(b.N)
	d = Diff{Diff: b.Mean - a.Mean}
	se := math.Sqrt(va + vb)
	if se == 0 {
		// Both arms measured the same value on every seed: the
		// difference is exact.
		d.Low, d.High, d.DF = d.Diff, d.Diff, float64(a.N+b.N-2)
		return d, true
	}
	d.DF = (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	h := T975(d.DF) * se
	d.Low, d.High = d.Diff-h, d.Diff+h
	return d, true
}

// t975 holds t(0.975, df) for the df in t975DF.
var (
	t975DF = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
		21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 40, 60, 120}
	t975 = []float64{12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
		2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
		2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423, 2.0211, 2.0003, 1.9799}
)

// z975 is the normal quantile t tends to as df grows.
const z975 = 1.959964

// T975 is the 0.975 quantile of Student's t with df degrees of freedom
// (df < 1 counts as 1): the table's entry, or a linear interpolation in
// 1/df between entries (beyond 120, towards the normal quantile).
func T975(df float64) float64 {
	if df <= 1 || math.IsNaN(df) {
		return t975[0]
	}
	for i := 1; i < len(t975DF); i++ {
		if df <= t975DF[i] {
			return interp(df, t975DF[i-1], t975DF[i], t975[i-1], t975[i])
		}
	}
	// 1/df from 1/120 down to 0 (df = ∞).
	last := len(t975DF) - 1
	w := (1 / df) / (1 / t975DF[last])
	return z975 + w*(t975[last]-z975)
}

func interp(df, lo, hi, tlo, thi float64) float64 {
	w := (1/lo - 1/df) / (1/lo - 1/hi)
	return tlo + w*(thi-tlo)
}

// Format is x to three significant digits, as figures of a few seeds merit.
func Format(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// IntervalText is "[low, high]", or NoInterval for one seed.
func (s Summary) IntervalText() string {
	if !s.Interval() {
		return NoInterval
	}
	return fmt.Sprintf("[%s, %s]", Format(s.Low), Format(s.High))
}
