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

// Activation kinds, so the per-unit code switches on a number, not a
// string.
const (
	kindTanh = iota
	kindReLU
	kindGELU
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
	kind  int // the activation
}

// NewNet lays out a network's parameters (all zero).
func NewNet(s Shape) (*Net, error) {
	if s.Vocab < 2 || s.Context < 1 || s.Embed < 1 || s.Width < 1 || s.Depth < 1 {
		return nil, fmt.Errorf("invalid network shape %+v", s)
	}
	n := &Net{Shape: s}
	switch s.Activation {
	case ActTanh:
		n.kind = kindTanh
	case ActReLU:
		n.kind = kindReLU
	case ActGELU:
		n.kind = kindGELU
	default:
		return nil, fmt.Errorf("unknown activation %q", s.Activation)
	}
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
	t      [][]float64 // GELU only: the Tanh of each hidden unit, for the backward pass
	dy, dz []float64
	nz     []int // rows with a non-zero output gradient
}

func (n *Net) newWork() *work {
	w := &work{}
	w.y = append(w.y, make([]float64, n.Context*n.Embed))
	w.z = append(w.z, nil)
	w.t = append(w.t, nil)
	for _, L := range n.layers {
		w.z = append(w.z, make([]float64, L.out))
		w.y = append(w.y, make([]float64, L.out))
		w.t = append(w.t, make([]float64, L.out))
	}
	m := max(n.Context*n.Embed, n.Width, n.Vocab)
	w.dy = make([]float64, m)
	w.dz = make([]float64, m)
	w.nz = make([]int, 0, m)
	return w
}

const geluK = 0.7978845608028654 // sqrt(2/pi)

// activate sets y = act(z) for one hidden layer; for GELU, t receives the
// Tanh its derivative needs again.
func (n *Net) activate(z, y, t []float64) {
	y, t = y[:len(z)], t[:len(z)]
	switch n.kind {
	case kindTanh:
		for o, s := range z {
			y[o] = Tanh(s)
		}
	case kindReLU:
		for o, s := range z {
			if s > 0 {
				y[o] = s
			} else {
				y[o] = 0
			}
		}
	default:
		for o, s := range z {
			th := Tanh(geluK * (s + 0.044715*s*s*s))
			t[o] = th
			y[o] = 0.5 * s * (1 + th)
		}
	}
}

// actBack sets dz = dy * act'(z) for one hidden layer, where y = act(z)
// and t is what activate left for GELU.
func (n *Net) actBack(dy, z, y, t, dz []float64) {
	z, y, t, dz = z[:len(dy)], y[:len(dy)], t[:len(dy)], dz[:len(dy)]
	switch n.kind {
	case kindTanh:
		for i, v := range dy {
			dz[i] = v * (1 - y[i]*y[i])
		}
	case kindReLU:
		for i, v := range dy {
			g := 0.0
			if z[i] > 0 {
				g = 1
			}
			dz[i] = v * g
		}
	default:
		for i, v := range dy {
			zi, ti := z[i], t[i]
			dz[i] = v * (0.5*(1+ti) + 0.5*zi*(1-ti*ti)*geluK*(1+3*0.044715*zi*zi))
		}
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
		z := w.z[l+1][:L.out]
		dense(n.P[L.w:L.b], n.P[L.b:L.b+L.out], w.y[l][:L.in], z)
		if l < last {
			n.activate(z, w.y[l+1], w.t[l+1])
		}
	}
	return w.z[last+1]
}

// dense sets z[o] = b[o] + W[o][0]*in[0] + W[o][1]*in[1] + ..., summed in
// that order. Four rows go at once: their sums are independent chains the
// CPU overlaps, and each is still added in the same order. The updates
// keep the form s += a*b (here and in denseBack): on arm64 the compiler
// fuses that form into one rounding, so the form is part of the bits there.
func dense(W, b, in, z []float64) {
	nin := len(in)
	b = b[:len(z)]
	o := 0
	for ; o+4 <= len(z); o += 4 {
		r0 := W[o*nin:][:nin]
		r1 := W[(o+1)*nin:][:nin]
		r2 := W[(o+2)*nin:][:nin]
		r3 := W[(o+3)*nin:][:nin]
		s0, s1, s2, s3 := b[o], b[o+1], b[o+2], b[o+3]
		for i, x := range in {
			s0 += r0[i] * x
			s1 += r1[i] * x
			s2 += r2[i] * x
			s3 += r3[i] * x
		}
		z[o], z[o+1], z[o+2], z[o+3] = s0, s1, s2, s3
	}
	for ; o < len(z); o++ {
		row := W[o*nin:][:nin]
		s := b[o]
		for i, x := range in {
			s += row[i] * x
		}
		z[o] = s
	}
}

// denseBack adds a dense layer's gradient for output gradient d: gb[o] +=
// d[o], gW[o][i] += d[o]*in[i], and dIn[i] += d[o]*W[o][i] over o in
// order. Rows with d[o] == 0 add nothing (adding 0*W could turn -0 into
// +0 or a huge weight's product into NaN). Four rows go at once, each sum
// still in order of o. nz is scratch space for len(d) indices.
func denseBack(W, gW, gb, in, d, dIn []float64, nz []int) {
	nin := len(in)
	dIn = dIn[:nin]
	gb = gb[:len(d)]
	nz = nz[:0]
	for o, v := range d {
		if v != 0 {
			gb[o] += v
			nz = append(nz, o)
		}
	}
	k := 0
	for ; k+4 <= len(nz); k += 4 {
		o0, o1, o2, o3 := nz[k], nz[k+1], nz[k+2], nz[k+3]
		d0, d1, d2, d3 := d[o0], d[o1], d[o2], d[o3]
		r0, g0 := W[o0*nin:][:nin], gW[o0*nin:][:nin]
		r1, g1 := W[o1*nin:][:nin], gW[o1*nin:][:nin]
		r2, g2 := W[o2*nin:][:nin], gW[o2*nin:][:nin]
		r3, g3 := W[o3*nin:][:nin], gW[o3*nin:][:nin]
		for i, x := range in {
			g0[i] += d0 * x
			g1[i] += d1 * x
			g2[i] += d2 * x
			g3[i] += d3 * x
		}
		for i, s := range dIn {
			s += d0 * r0[i]
			s += d1 * r1[i]
			s += d2 * r2[i]
			dIn[i] = s + d3*r3[i]
		}
	}
	for ; k < len(nz); k++ {
		o := nz[k]
		do := d[o]
		row, grow := W[o*nin:][:nin], gW[o*nin:][:nin]
		for i, x := range in {
			grow[i] += do * x
			dIn[i] += do * row[i]
		}
	}
}

// nll is the negative log-likelihood (nats) of target under logits; when p
// is not nil it receives the softmax probabilities.
func nll(logits []float64, target int, p []float64) float64 {
	// The maximum by plain comparison is math.Max's unless a logit is NaN
	// or the maximum is zero (math.Max prefers +0 to -0); those take
	// math.Max itself.
	m := logits[0]
	plain := m == m
	for _, v := range logits[1:] {
		if v > m {
			m = v
		} else if v != v {
			plain = false
		}
	}
	if !plain || m == 0 {
		m = logits[0]
		for _, v := range logits[1:] {
			m = math.Max(m, v)
		}
	}
	// The exponentials go two at a time (expPair); the sum still adds
	// them one by one in order.
	sum := 0.0
	n := len(logits)
	if p == nil {
		i := 0
		for ; i+1 < n; i += 2 {
			e0, e1 := expPair(logits[i]-m, logits[i+1]-m)
			sum += e0
			sum += e1
		}
		if i < n {
			sum += Exp(logits[i] - m)
		}
		return m + Log(sum) - logits[target]
	}
	p = p[:n]
	i := 0
	for ; i+1 < n; i += 2 {
		e0, e1 := expPair(logits[i]-m, logits[i+1]-m)
		p[i], p[i+1] = e0, e1
		sum += e0
		sum += e1
	}
	if i < n {
		e := Exp(logits[i] - m)
		p[i] = e
		sum += e
	}
	for i := range p {
		p[i] /= sum
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
		dIn := w.dy[:L.in]
		clear(dIn)
		denseBack(n.P[L.w:L.b], g[L.w:L.b], g[L.b:L.b+L.out], w.y[l][:L.in], dz[:L.out], dIn, w.nz)
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
		dz = w.dz[:L.in]
		n.actBack(dIn, w.z[l], w.y[l], w.t[l], dz)
	}
	return loss
}
