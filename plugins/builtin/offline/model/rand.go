package model

import (
	"hash/fnv"
	"math"
)

// rng is a small counter-based generator (splitmix64), written out so
// samples never depend on a library version.
type rng struct{ s uint64 }

func newRNG(seed int64, salt string) *rng {
	return &rng{s: uint64(seed) ^ hash64(salt)}
}

func (r *rng) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// normal is a standard normal draw (Box-Muller).
func (r *rng) normal() float64 {
	u := 1 - r.float() // (0, 1]
	v := r.float()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// unitHash maps a string to a fixed value in [-1, 1): the model's
// "intuition" about something it has never seen measured.
func unitHash(s string) float64 {
	return float64(hash64(s)>>11)/(1<<52) - 1
}
