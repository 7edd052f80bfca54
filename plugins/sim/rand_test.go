package sim

import (
	"hash/fnv"
	"testing"
)

// hash is hash/fnv's FNV-1a over the seed's bytes and each part with a
// zero byte after it, mixed: the draws of every rehearsal so far.
func TestHashIsFNV1a(t *testing.T) {
	ref := func(seed int64, parts ...string) uint64 {
		h := fnv.New64a()
		var b [8]byte
		for i := range b {
			b[i] = byte(uint64(seed) >> (8 * i))
		}
		h.Write(b[:])
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		return mix(h.Sum64())
	}
	cases := [][]string{nil, {""}, {"hours", "run/1"}, {"right", "e\x00t\x00knob=1;\x00"}, {"é✓", "", "x"}}
	for _, seed := range []int64{0, 1, -1, 42, 1 << 62, -9e18} {
		for _, parts := range cases {
			if got, want := hash(seed, parts...), ref(seed, parts...); got != want {
				t.Errorf("hash(%d, %q) = %x, want %x", seed, parts, got, want)
			}
		}
	}
}
