package model

import (
	"math"
	"testing"
)

// The reference implementations below are Exp, Tanh and nll as they were
// when the figures were pinned; faster versions must match them bit for
// bit on every input.

func expRef(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > expMax:
		return math.Inf(1)
	case x < expMin:
		return 0
	}
	k := math.Floor(x*log2e + 0.5)
	r := (x - k*ln2Hi) - k*ln2Lo
	p := expCoef[13]
	for i := 12; i >= 0; i-- {
		p = float64(p*r) + expCoef[i]
	}
	return math.Ldexp(p, int(k))
}

func tanhRef(x float64) float64 {
	a := math.Abs(x)
	if a > 22 {
		return math.Copysign(1, x)
	}
	var y float64
	if a < 0.5 {
		r := 2 * a
		p := expCoef[18]
		for i := 17; i >= 1; i-- {
			p = float64(p*r) + expCoef[i]
		}
		m := p * r
		y = m / (m + 2)
	} else {
		y = 1 - 2/(expRef(2*a)+1)
	}
	return math.Copysign(y, x)
}

func nllRef(logits []float64, target int, p []float64) float64 {
	m := logits[0]
	for _, v := range logits[1:] {
		m = math.Max(m, v)
	}
	sum := 0.0
	for i, v := range logits {
		e := expRef(v - m)
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

// mathEdges are inputs at the ends of Exp's and Tanh's ranges and around
// the exponents where 2^k stops being a normal number.
func mathEdges() []float64 {
	xs := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		0x1p-1022, -0x1p-1022, expMax, expMin, 0.5, -0.5, 0.25, 22, -22, 11, -11, 354.9, -372.6}
	var out []float64
	for _, x := range xs {
		out = append(out, x, x/2, x*2)
		for _, d := range []float64{math.Inf(1), math.Inf(-1)} {
			y := x
			for range 40 {
				y = math.Nextafter(y, d)
				out = append(out, y)
			}
		}
	}
	for k := -1080; k <= -1010; k++ {
		for _, f := range []float64{-0.5, -0.25, 0, 0.25, 0.5} {
			x := (float64(k) + f) * math.Ln2
			out = append(out, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(-1)))
		}
	}
	for k := 1015; k <= 1025; k++ {
		for _, f := range []float64{-0.5, -0.25, 0, 0.25, 0.5} {
			x := (float64(k) + f) * math.Ln2
			out = append(out, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		}
	}
	return out
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func TestExpTanhMatchReference(t *testing.T) {
	check := func(x float64) {
		t.Helper()
		if got, want := Exp(x), expRef(x); !sameBits(got, want) {
			t.Fatalf("Exp(%v) = %v (%#x), reference %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if got, want := Tanh(x), tanhRef(x); !sameBits(got, want) {
			t.Fatalf("Tanh(%v) = %v (%#x), reference %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	edges := mathEdges()
	for _, x := range edges {
		check(x)
	}
	checkPair := func(x, y float64) {
		t.Helper()
		a, b := expPair(x, y)
		if wa, wb := expRef(x), expRef(y); !sameBits(a, wa) || !sameBits(b, wb) {
			t.Fatalf("expPair(%v, %v) = %v, %v, reference %v, %v", x, y, a, b, wa, wb)
		}
	}
	for i, x := range edges {
		checkPair(x, edges[(i*7+3)%len(edges)])
		checkPair(x, -x/3)
	}
	for x := -760.0; x <= 720; x += 0.0317 {
		check(x)
	}
	r := newRNG(1)
	for range 60_000 {
		check((r.float()*2 - 1) * 760)
		check((r.float()*2 - 1) * 30)
		check(math.Float64frombits(r.next()))
		checkPair((r.float()*2-1)*760, (r.float()*2-1)*30)
	}
}

func TestNLLMatchesReference(t *testing.T) {
	r := newRNG(2)
	specials := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 800, -800}
	for i := range 20_000 {
		n := 2 + r.intn(40)
		logits := make([]float64, n)
		scale := []float64{1e-3, 1, 30, 400, 2000}[i%5]
		for j := range logits {
			logits[j] = (r.float()*2 - 1) * scale
			if r.intn(20) == 0 {
				logits[j] = specials[r.intn(len(specials))]
			}
		}
		if i%7 == 0 {
			clear(logits) // all zero: the maximum's sign matters
			logits[r.intn(n)] = math.Copysign(0, -1)
		}
		target := r.intn(n)
		p, pr := make([]float64, n), make([]float64, n)
		got, want := nll(logits, target, p), nllRef(logits, target, pr)
		if !sameBits(got, want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("nll(%v, %d) = %v, reference %v", logits, target, got, want)
		}
		for j := range p {
			if !sameBits(p[j], pr[j]) && !(math.IsNaN(p[j]) && math.IsNaN(pr[j])) {
				t.Fatalf("nll(%v, %d) p[%d] = %v, reference %v", logits, target, j, p[j], pr[j])
			}
		}
		if got2 := nll(logits, target, nil); !sameBits(got2, got) && !(math.IsNaN(got) && math.IsNaN(got2)) {
			t.Fatalf("nll without p = %v, with p %v", got2, got)
		}
	}
}

func FuzzExpTanh(f *testing.F) {
	edges := mathEdges()
	for i, x := range edges[:200] {
		f.Add(x, edges[len(edges)-1-i])
	}
	f.Fuzz(func(t *testing.T, x, y float64) {
		if got, want := Exp(x), expRef(x); !sameBits(got, want) {
			t.Fatalf("Exp(%v) = %v, reference %v", x, got, want)
		}
		if got, want := Tanh(x), tanhRef(x); !sameBits(got, want) {
			t.Fatalf("Tanh(%v) = %v, reference %v", x, got, want)
		}
		a, b := expPair(x, y)
		if wa, wb := expRef(x), expRef(y); !sameBits(a, wa) || !sameBits(b, wb) {
			t.Fatalf("expPair(%v, %v) = %v, %v, reference %v, %v", x, y, a, b, wa, wb)
		}
	})
}
