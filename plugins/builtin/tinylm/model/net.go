package model

import (
	"fmt"
	"math"
)

// Activations.
const (
	ActTanh = "tanh"
	ActReLU = "relu"
	ActGELU = "gelu"
)

// Shape fixes a network's sizes.
type Shape struct {
	Vocab, Context, Embed, Width, Depth int
	Activation                          string
}

// layer is a dense layer's place in the parameter vector: W is out x in,
// row-major, followed by out biases.
type layer struct{ w, b, in, out int }

// Net is an MLP language model: the embeddings of the last Context
// characters, concatenated, pass through Depth dense layers with the
// activation and a dense output layer to logits over the vocabulary. All
// parameters live in one vector P so optimisers treat them uniformly.
type Net struct {
	Shape
	P      []float64
	layers []layer // hidden layers, then the output layer
	// decay[i] is true for weights (not biases): weight decay applies there.
	decay []bool
}

// NewNet lays out a network's parameters (all zero).
func NewNet(s Shape) (*Net, error) {
	if s.Vocab < 2 || s.Context < 1 || s.Embed < 1 || s.Width < 1 || s.Depth < 1 {
		return nil, fmt.Errorf("invalid network shape %+v", s)
	}
	switch s.Activation {
	case ActTanh, ActReLU, ActGELU:
	default:
		return nil, fmt.Errorf("unknown activation %q", s.Activation)
	}
	n := &Net{Shape: s}
	off := s.Vocab * s.Embed
	in := s.Context * s.Embed
	for l := 0; l <= s.Depth; l++ {
		out := s.Width
		if l == s.Depth {
			out = s.Vocab
		}
		n.layers = append(n.layers, layer{w: off, b: off + in*out, in: in, out: out})
		off += in*out + out
		in = out
	}
	n.P = make([]float64, off)
	n.decay = make([]bool, off)
	for i := 0; i < s.Vocab*s.Embed; i++ {
		n.decay[i] = true
	}
	for _, L := range n.layers {
		for i := L.w; i < L.b; i++ {
			n.decay[i] = true
		}
	}
	return n, nil
}

// Init draws the parameters: embeddings uniform with variance scale^2,
// weights uniform with variance scale^2/fan_in (LeCun), biases zero.
func (n *Net) Init(r *rng, scale float64) {
	uni := func(std float64) float64 { return (2*r.float() - 1) * std * math.Sqrt(3) }
	for i := 0; i < n.Vocab*n.Embed; i++ {
		n.P[i] = uni(scale)
	}
	for _, L := range n.layers {
		std := scale / math.Sqrt(float64(L.in))
		for i := L.w; i < L.b; i++ {
			n.P[i] = uni(std)
		}
		for i := L.b; i < L.b+L.out; i++ {
			n.P[i] = 0
		}
	}
}

// work is per-goroutine scratch space.
type work struct {
	z, y   [][]float64 // pre-activations and outputs per layer; y[0] is the input
	dy, dz []float64
	logits []float64
}

func (n *Net) newWork() *work {
	w := &work{}
	w.y = append(w.y, make([]float64, n.Context*n.Embed))
	w.z = append(w.z, nil)
	for _, L := range n.layers {
		w.z = append(w.z, make([]float64, L.out))
		w.y = append(w.y, make([]float64, L.out))
	}
	m := max(n.Context*n.Embed, n.Width, n.Vocab)
	w.dy = make([]float64, m)
	w.dz = make([]float64, m)
	return w
}

const geluK = 0.7978845608028654 // sqrt(2/pi)

func (n *Net) act(z float64) float64 {
	switch n.Activation {
	case ActTanh:
		return Tanh(z)
	case ActReLU:
		if z > 0 {
			return z
		}
		return 0
	default:
		return 0.5 * z * (1 + Tanh(geluK*(z+0.044715*z*z*z)))
	}
}

// actGrad is d act / dz at z, where y = act(z).
func (n *Net) actGrad(z, y float64) float64 {
	switch n.Activation {
	case ActTanh:
		return 1 - y*y
	case ActReLU:
		if z > 0 {
			return 1
		}
		return 0
	default:
		t := Tanh(geluK * (z + 0.044715*z*z*z))
		return 0.5*(1+t) + 0.5*z*(1-t*t)*geluK*(1+3*0.044715*z*z)
	}
}

// forward computes the logits for one context; they stay in w.z[last].
func (n *Net) forward(ctx []uint8, w *work) []float64 {
	x := w.y[0]
	for i, c := range ctx {
		copy(x[i*n.Embed:(i+1)*n.Embed], n.P[int(c)*n.Embed:(int(c)+1)*n.Embed])
	}
	last := len(n.layers) - 1
	for l, L := range n.layers {
		in, z, y := w.y[l], w.z[l+1], w.y[l+1]
		for o := 0; o < L.out; o++ {
			row := n.P[L.w+o*L.in : L.w+(o+1)*L.in]
			s := n.P[L.b+o]
			for i, v := range row {
				s += v * in[i]
			}
			z[o] = s
			if l < last {
				y[o] = n.act(s)
			}
		}
	}
	return w.z[last+1]
}

// nll is the negative log-likelihood (nats) of target under logits; when p
// is not nil it receives the softmax probabilities.
func nll(logits []float64, target int, p []float64) float64 {
	m := logits[0]
	for _, v := range logits[1:] {
		m = math.Max(m, v)
	}
	sum := 0.0
	for i, v := range logits {
		e := Exp(v - m)
		if p != nil {
			p[i] = e
		}
		sum += e
	}
	if p != nil {
		for i := range p[:len(logits)] {
			p[i] /= sum
		}
	}
	return m + Log(sum) - logits[target]
}

// Loss returns the NLL (nats) of target given ctx.
func (n *Net) Loss(ctx []uint8, target int, w *work) float64 {
	return nll(n.forward(ctx, w), target, nil)
}

// grad adds d loss / d P for one example to g and returns the loss.
func (n *Net) grad(ctx []uint8, target int, g []float64, w *work) float64 {
	logits := n.forward(ctx, w)
	dz := w.dz[:n.Vocab]
	loss := nll(logits, target, dz)
	dz[target] -= 1
	for l := len(n.layers) - 1; l >= 0; l-- {
		L := n.layers[l]
		in := w.y[l]
		dIn := w.dy[:L.in]
		clear(dIn)
		for o := 0; o < L.out; o++ {
			d := dz[o]
			if d == 0 {
				continue
			}
			g[L.b+o] += d
			row := n.P[L.w+o*L.in : L.w+(o+1)*L.in]
			grow := g[L.w+o*L.in : L.w+(o+1)*L.in]
			for i, v := range in {
				grow[i] += d * v
				dIn[i] += d * row[i]
			}
		}
		if l == 0 {
			for i, c := range ctx {
				ge := g[int(c)*n.Embed : (int(c)+1)*n.Embed]
				for j := range ge {
					ge[j] += dIn[i*n.Embed+j]
				}
			}
			break
		}
		// Through the previous layer's activation.
		z, y := w.z[l], w.y[l]
		dz = w.dz[:L.in]
		for i := range dz {
			dz[i] = dIn[i] * n.actGrad(z[i], y[i])
		}
	}
	return loss
}
