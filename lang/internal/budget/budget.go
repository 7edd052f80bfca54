package budget

import (
	"runtime/metrics"
	"time"
)

// Limits are what one load may spend. Zero fields take the defaults.
type Limits struct {
	// MaxSourceBytes bounds the size of the source files together.
	MaxSourceBytes int
	// MaxDepth bounds the nesting of brackets, braces, parentheses and
	// string interpolations; parsers recurse on it, and deep enough nesting
	// would overflow the stack, which no recover can catch.
	MaxDepth int
	// MaxOperators bounds the operators of one file: parsers and
	// evaluators recurse along a chain of them.
	MaxOperators int
	// Timeout bounds the wall time of evaluating and decoding the spec.
	Timeout time.Duration
	// MaxHeapGrowth bounds how much the live heap may grow while the spec
	// is evaluated.
	MaxHeapGrowth uint64
}

// Defaults are generous for any real spec: the largest shipped spec is a
// few kilobytes, nests less than ten deep, and loads in milliseconds.
const (
	DefaultMaxSourceBytes = 1 << 20
	DefaultMaxDepth       = 100
	DefaultMaxOperators   = 50_000
	DefaultTimeout        = 10 * time.Second
	DefaultMaxHeapGrowth  = 2 << 30
)

// WithDefaults fills zero fields with the defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxSourceBytes <= 0 {
		l.MaxSourceBytes = DefaultMaxSourceBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxOperators <= 0 {
		l.MaxOperators = DefaultMaxOperators
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxHeapGrowth == 0 {
		l.MaxHeapGrowth = DefaultMaxHeapGrowth
	}
	return l
}

// Exceeded says which limit stopped Run.
type Exceeded int

const (
	// Within means f returned in time.
	Within Exceeded = iota
	// Time means f ran past Limits.Timeout.
	Time
	// Memory means the heap grew by more than Limits.MaxHeapGrowth.
	Memory
)

// pollEvery is how often Run samples the heap: often enough that a spec
// cannot allocate much past the ceiling between two looks.
const pollEvery = 10 * time.Millisecond

// Run calls f in its own goroutine and waits until it returns, the timeout
// passes, or the heap has grown by more than the ceiling. On a limit it
// returns the zero T and which limit it was.
//
// f cannot be stopped from outside, so on a limit it is abandoned: it runs
// on in the background until it ends by itself, and whatever it returns is
// dropped. f must therefore own all the state it writes. Commands exit
// right after reporting such a spec, so the abandoned work costs nothing in
// practice; a long-lived caller pays for it until it ends.
func Run[T any](lim Limits, f func() T) (T, Exceeded) {
	lim = lim.WithDefaults()
	done := make(chan T, 1) // buffered: an abandoned f must not block forever
	base := heapBytes()
	go func() { done <- f() }()
	deadline := time.NewTimer(lim.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var zero T
	for {
		select {
		case v := <-done:
			return v, Within
		case <-deadline.C:
			return zero, Time
		case <-tick.C:
			if h := heapBytes(); h > base && h-base > lim.MaxHeapGrowth {
				return zero, Memory
			}
		}
	}
}

// heapBytes is the memory held by heap objects, live or not yet swept: it
// is current without forcing a collection.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
