package model

import "math"

// Portable elementary functions. The standard library's Exp and Log have
// assembly versions on amd64 whose code path depends on the CPU (FMA or
// not), so results could differ between machines; these use only
// correctly rounded operations (+, -, *, /, sqrt) plus exact helpers
// (Frexp, Ldexp, Floor), and give the same bits everywhere for one binary.

const (
	ln2Hi  = 6.93147180369123816490e-01
	ln2Lo  = 1.90821492927058770002e-10
	log2e  = 1.44269504088896338700e+00
	expMax = 709.782712893384
	expMin = -745.1332191019411
)

// expCoef[i] = 1/i!, for the Taylor series of exp on |r| <= ln2/2, where
// degree 13 is accurate to about 2e-16, and of expm1 on |r| <= 1 (degree 18).
var expCoef = func() [19]float64 {
	var c [19]float64
	f := 1.0
	for i := range c {
		if i > 0 {
			f *= float64(i)
		}
		c[i] = 1 / f
	}
	return c
}()

// Exp returns e**x.
func Exp(x float64) float64 {
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
	// Horner's rule, unrolled: p = expCoef[13]; p = p*r + expCoef[i] for
	// i = 12 down to 0.
	c := &expCoef
	p := float64(c[13]*r) + c[12]
	p = float64(p*r) + c[11]
	p = float64(p*r) + c[10]
	p = float64(p*r) + c[9]
	p = float64(p*r) + c[8]
	p = float64(p*r) + c[7]
	p = float64(p*r) + c[6]
	p = float64(p*r) + c[5]
	p = float64(p*r) + c[4]
	p = float64(p*r) + c[3]
	p = float64(p*r) + c[2]
	p = float64(p*r) + c[1]
	p = float64(p*r) + c[0]
	if k >= -1021 && k <= 1023 {
		// p = e^r lies in [0.7, 1.5], so p * 2^k is a normal number and
		// the product is exact: the same bits as Ldexp, without its
		// Frexp and branches.
		return p * math.Float64frombits(uint64(int64(k)+1023)<<52)
	}
	return math.Ldexp(p, int(k)) // subnormal or 2^k out of range
}

// expPair returns Exp(x0), Exp(x1) with the two Horner chains interleaved:
// each is a long chain of dependent operations, and side by side the CPU
// overlaps them. Every operation is Exp's, so the bits are too.
func expPair(x0, x1 float64) (float64, float64) {
	// In this range Exp takes none of its special cases and k lies in
	// [-1020, 1023], where it scales by one multiplication.
	if !(x0 >= -707 && x0 <= 709 && x1 >= -707 && x1 <= 709) {
		return Exp(x0), Exp(x1)
	}
	k0 := math.Floor(x0*log2e + 0.5)
	k1 := math.Floor(x1*log2e + 0.5)
	r0 := (x0 - k0*ln2Hi) - k0*ln2Lo
	r1 := (x1 - k1*ln2Hi) - k1*ln2Lo
	c := &expCoef
	p0 := float64(c[13]*r0) + c[12]
	p1 := float64(c[13]*r1) + c[12]
	p0 = float64(p0*r0) + c[11]
	p1 = float64(p1*r1) + c[11]
	p0 = float64(p0*r0) + c[10]
	p1 = float64(p1*r1) + c[10]
	p0 = float64(p0*r0) + c[9]
	p1 = float64(p1*r1) + c[9]
	p0 = float64(p0*r0) + c[8]
	p1 = float64(p1*r1) + c[8]
	p0 = float64(p0*r0) + c[7]
	p1 = float64(p1*r1) + c[7]
	p0 = float64(p0*r0) + c[6]
	p1 = float64(p1*r1) + c[6]
	p0 = float64(p0*r0) + c[5]
	p1 = float64(p1*r1) + c[5]
	p0 = float64(p0*r0) + c[4]
	p1 = float64(p1*r1) + c[4]
	p0 = float64(p0*r0) + c[3]
	p1 = float64(p1*r1) + c[3]
	p0 = float64(p0*r0) + c[2]
	p1 = float64(p1*r1) + c[2]
	p0 = float64(p0*r0) + c[1]
	p1 = float64(p1*r1) + c[1]
	p0 = float64(p0*r0) + c[0]
	p1 = float64(p1*r1) + c[0]
	return p0 * math.Float64frombits(uint64(int64(k0)+1023)<<52),
		p1 * math.Float64frombits(uint64(int64(k1)+1023)<<52)
}

// Log returns the natural logarithm of x.
func Log(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	f, e := math.Frexp(x)
	if f < math.Sqrt2/2 {
		f *= 2
		e--
	}
	// log f = 2 atanh(s), s = (f-1)/(f+1), |s| <= 0.1716.
	s := (f - 1) / (f + 1)
	s2 := s * s
	p := 1.0 / 25
	for k := 23; k >= 1; k -= 2 {
		p = float64(p*s2) + 1/float64(k)
	}
	fe := float64(e)
	return fe*ln2Hi + (2*s*p + fe*ln2Lo)
}

// Tanh returns the hyperbolic tangent of x.
func Tanh(x float64) float64 {
	a := math.Abs(x)
	if a > 22 {
		return math.Copysign(1, x)
	}
	var y float64
	if a < 0.5 {
		// 1 - 2/(e^2a + 1) loses digits near 0; tanh a = m/(m+2) with
		// m = e^2a - 1 summed directly keeps them.
		r := 2 * a
		c := &expCoef
		p := float64(c[18]*r) + c[17] // Horner's rule, unrolled, down to c[1]
		p = float64(p*r) + c[16]
		p = float64(p*r) + c[15]
		p = float64(p*r) + c[14]
		p = float64(p*r) + c[13]
		p = float64(p*r) + c[12]
		p = float64(p*r) + c[11]
		p = float64(p*r) + c[10]
		p = float64(p*r) + c[9]
		p = float64(p*r) + c[8]
		p = float64(p*r) + c[7]
		p = float64(p*r) + c[6]
		p = float64(p*r) + c[5]
		p = float64(p*r) + c[4]
		p = float64(p*r) + c[3]
		p = float64(p*r) + c[2]
		p = float64(p*r) + c[1]
		m := p * r
		y = m / (m + 2)
	} else {
		y = 1 - 2/(Exp(2*a)+1)
	}
	return math.Copysign(y, x)
}
