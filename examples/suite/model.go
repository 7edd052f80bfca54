package main

import (
	"math"
	"math/rand/v2"
)

// mlp is one hidden layer (or none: hidden = 0 is a linear model) with one
// output: a logit for classification, the prediction for regression.
type mlp struct {
	in, hidden int
	relu       bool
	w1         []float64 // hidden x in, row-major
	b1         []float64
	w2         []float64 // hidden, or in for a linear model
	b2         float64
}

func newMLP(in int, h Hyper, rng *rand.Rand) *mlp {
	m := &mlp{in: in, hidden: h.Hidden, relu: h.Activation == "relu"}
	normal := func(n, fanIn int) []float64 {
		w := make([]float64, n)
		s := h.InitScale / math.Sqrt(float64(fanIn))
		for i := range w {
			w[i] = rng.NormFloat64() * s
		}
		return w
	}
	if m.hidden == 0 {
		m.w2 = normal(in, in)
		return m
	}
	m.w1 = normal(m.hidden*in, in)
	m.b1 = make([]float64, m.hidden)
	m.w2 = normal(m.hidden, m.hidden)
	return m
}

// forward returns the output and the hidden activations (nil for a linear
// model) of one input.
func (m *mlp) forward(x []float64, act []float64) (float64, []float64) {
	if m.hidden == 0 {
		return dot(m.w2, x) + m.b2, nil
	}
	for j := range m.hidden {
		z := dot(m.w1[j*m.in:(j+1)*m.in], x) + m.b1[j]
		if m.relu {
			act[j] = max(z, 0)
		} else {
			act[j] = math.Tanh(z)
		}
	}
	return dot(m.w2, act) + m.b2, act
}

// step is one SGD step on the rows idx of X, Y, with L2 weight decay.
func (m *mlp) step(X [][]float64, Y []float64, idx []int, lr, l2 float64, classify bool) {
	g1 := make([]float64, len(m.w1))
	gb1 := make([]float64, len(m.b1))
	g2 := make([]float64, len(m.w2))
	var gb2 float64
	act := make([]float64, m.hidden)
	for _, i := range idx {
		out, a := m.forward(X[i], act)
		// d loss / d out: sigmoid cross-entropy and squared error share
		// the form prediction - target.
		d := out - Y[i]
		if classify {
			d = sigmoid(out) - Y[i]
		}
		gb2 += d
		if m.hidden == 0 {
			for k, x := range X[i] {
				g2[k] += d * x
			}
			continue
		}
		for j := range m.hidden {
			g2[j] += d * a[j]
			var da float64
			if m.relu {
				if a[j] > 0 {
					da = d * m.w2[j]
				}
			} else {
				da = d * m.w2[j] * (1 - a[j]*a[j])
			}
			gb1[j] += da
			row := g1[j*m.in : (j+1)*m.in]
			for k, x := range X[i] {
				row[k] += da * x
			}
		}
	}
	n := float64(len(idx))
	update := func(w, g []float64) {
		for k := range w {
			w[k] -= lr * (g[k]/n + l2*w[k])
		}
	}
	update(m.w1, g1)
	update(m.b1, gb1)
	update(m.w2, g2)
	m.b2 -= lr * gb2 / n
}

// loss is the mean loss over X, Y: cross-entropy or squared error.
func (m *mlp) loss(X [][]float64, Y []float64, classify bool) float64 {
	act := make([]float64, m.hidden)
	var sum float64
	for i, x := range X {
		out, _ := m.forward(x, act)
		if classify {
			// log(1 + e^-z) for the true class, computed stably.
			z := out
			if Y[i] < 0.5 {
				z = -out
			}
			sum += math.Max(-z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
		} else {
			e := out - Y[i]
			sum += e * e
		}
	}
	return sum / float64(len(X))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
