package model

import (
	"math"
	"testing"
)

// TestGradCheck compares backprop against central finite differences for
// every activation and a two-layer network.
func TestGradCheck(t *testing.T) {
	for _, act := range []string{ActTanh, ActReLU, ActGELU} {
		t.Run(act, func(t *testing.T) {
			net, err := NewNet(Shape{Vocab: 7, Context: 3, Embed: 4, Width: 5, Depth: 2, Activation: act})
			if err != nil {
				t.Fatal(err)
			}
			net.Init(newRNG(3), 1.5)
			// Non-zero biases exercise their gradients too.
			r := newRNG(4)
			for i := range net.P {
				if !net.decay[i] {
					net.P[i] = r.float() - 0.5
				}
			}
			w := net.newWork()
			ctx := []uint8{1, 4, 1}
			target := 6
			g := make([]float64, len(net.P))
			net.grad(ctx, target, g, w)
			const h = 1e-5
			worst := 0.0
			for i := range net.P {
				old := net.P[i]
				net.P[i] = old + h
				lp := net.Loss(ctx, target, w)
				net.P[i] = old - h
				lm := net.Loss(ctx, target, w)
				net.P[i] = old
				num := (lp - lm) / (2 * h)
				if d := math.Abs(num-g[i]) / math.Max(1e-4, math.Abs(num)+math.Abs(g[i])); d > worst {
					worst = d
				}
			}
			// ReLU kinks can land within h of a pre-activation; with these
			// seeds none does, so the same tolerance holds for all.
			if worst > 1e-5 {
				t.Errorf("worst relative gradient error %.3g", worst)
			}
		})
	}
}
