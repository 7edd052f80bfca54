package model

import (
	"math"
	"testing"
)

func TestPortableMath(t *testing.T) {
	for x := -40.0; x <= 40; x += 0.0137 {
		if got, want := Exp(x), math.Exp(x); math.Abs(got-want) > 4e-16*want {
			t.Fatalf("Exp(%v) = %v, want %v", x, got, want)
		}
		if got, want := Tanh(x), math.Tanh(x); math.Abs(got-want) > 1e-15*math.Max(1e-3, math.Abs(want)) {
			t.Fatalf("Tanh(%v) = %v, want %v", x, got, want)
		}
	}
	for _, x := range []float64{1e-300, 1e-10, 0.3, 0.7071, 1, 1.5, 2, 10, 1234.5, 1e300} {
		if got, want := Log(x), math.Log(x); math.Abs(got-want) > 1e-15*math.Max(1, math.Abs(want)) {
			t.Fatalf("Log(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsInf(Exp(1000), 1) || Exp(-1000) != 0 || !math.IsNaN(Exp(math.NaN())) {
		t.Error("Exp edge cases")
	}
	if !math.IsInf(Log(0), -1) || !math.IsNaN(Log(-1)) {
		t.Error("Log edge cases")
	}
}
