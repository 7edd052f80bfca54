package lsp

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkDiagnostics measures, through the protocol, the time from an
// edit of specs/lm2lm.hcl to its diagnostics: the debounce, a full check
// (load, compile, estimate, caps) and the notification.
func BenchmarkDiagnostics(b *testing.B) {
	e := startEditor(b, Options{})
	path := specPath(b, "lm2lm.hcl")
	u := e.open(path, readSpec(b, "lm2lm.hcl"))
	e.waitDiags(u, 1)
	seeds := []string{"seed        = 0\n", "seed        = 1\n"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := e.replace(u, seeds[i%2], seeds[(i+1)%2])
		if ds := e.waitDiags(u, v); len(ds) != 1 {
			b.Fatalf("diagnostics: %+v", ds)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/edit")
}

// TestHeapStableOverEdits makes 1,000 edits of specs/lm2lm.hcl, waiting
// for the diagnostics of every tenth, and checks that the live heap after
// them stays within a bound of the heap after the first check: documents,
// syntax and check results are replaced, never accumulated.
func TestHeapStableOverEdits(t *testing.T) {
	t.Parallel()
	e := startEditor(t, Options{})
	path := specPath(t, "lm2lm.hcl")
	u := e.open(path, readSpec(t, "lm2lm.hcl"))
	e.waitDiags(u, 1)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := 0; i < 1000; i++ {
		// The steps variable's default, one of lm2lm.hcl's own lines (its
		// seed is its base's).
		v := e.replace(u, fmt.Sprintf("default     = %d\n", 96+i), fmt.Sprintf("default     = %d\n", 96+i+1))
		if i%10 == 9 {
			e.waitDiags(u, v)
		}
	}
	after := heap()
	const bound = 4 << 20
	t.Logf("live heap: %.1f MiB after the first check, %.1f MiB after 1,000 edits", float64(before)/(1<<20), float64(after)/(1<<20))
	if after > before+bound {
		t.Errorf("live heap grew by %.1f MiB over 1,000 edits, more than %d MiB", float64(after-before)/(1<<20), bound>>20)
	}
}
