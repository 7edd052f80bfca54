package sim

import "math"

// hash mixes the world's seed with parts into 64 bits: FNV-1a (as
// hash/fnv's New64a computes it) over the seed's 8 bytes, little-endian,
// and each part followed by a zero byte. It is written out because it is
// called several times per simulated call, and hash/fnv allocates.
func hash(seed int64, parts ...string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := range 8 {
		h = (h ^ uint64(byte(uint64(seed)>>(8*i)))) * prime
	}
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h = (h ^ uint64(p[i])) * prime
		}
		h *= prime // the zero byte: h ^ 0 == h
	}
	return mix(h)
}

// mix is splitmix64's finaliser: nearby inputs give unrelated outputs.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// normal maps a hash to a standard normal draw (Box-Muller).
func normal(h uint64) float64 {
	u1 := unit(h)
	u2 := unit(mix(h ^ 0x9e3779b97f4a7c15))
	if u1 < 1e-300 {
		u1 = 1e-300
	}
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
