package report

import (
	"reflect"
	"testing"
)

func TestTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		whole  bool
		want   []float64
	}{
		{1, 3, true, []float64{1, 2, 3}},
		{1, 24, true, []float64{5, 10, 15, 20}},
		{0, 1, false, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{-1.12, 0.257, false, []float64{-1, -0.5, 0}},
		{0.209, 0.684, false, []float64{0.3, 0.4, 0.5, 0.6}},
		{2, 2, false, []float64{2}},
	}
	for _, c := range cases {
		got := ticks(c.lo, c.hi, c.whole)
		if len(got) != len(c.want) {
			t.Errorf("ticks(%g, %g, %v) = %v, want %v", c.lo, c.hi, c.whole, got, c.want)
			continue
		}
		for i := range got {
			if d := got[i] - c.want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("ticks(%g, %g, %v) = %v, want %v", c.lo, c.hi, c.whole, got, c.want)
				break
			}
		}
	}
	if !reflect.DeepEqual(ticks(0, 1, true), []float64{0, 1}) {
		t.Errorf("whole ticks of [0, 1] = %v", ticks(0, 1, true))
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 5: "5", 0.6000000000000001: "0.6", 12.5: "12.5", -0.5: "-0.5", 2500: "2,500", -12345: "-12,345", 0.001: "0.001", 20: "20"} {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}
