package runtime

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
)

// derive returns a seed derived from the run seed and a key; every random
// choice of a run comes from such a seed, so a choice depends on where it is
// made (phase, step, index), never on how many choices came before it.
func derive(seed int64, key string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(key))
	return h.Sum64()
}

// rng returns a generator for one key.
func rng(seed int64, key string) *rand.Rand {
	s := derive(seed, key)
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}
