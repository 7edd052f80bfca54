package main

import (
	"runtime/debug"
	"testing"
)

// Rehearsing collects less often unless GOGC says otherwise, and leaves the
// collector as it found it.
func TestCollectLess(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	restore := collectLess()
	if got := debug.SetGCPercent(rehearsalGCPercent); got != rehearsalGCPercent {
		t.Errorf("while rehearsing the GC percent is %d, want %d", got, rehearsalGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after rehearsing the GC percent is %d, want 100 again", got)
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	collectLess()()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("with GOGC=50 rehearsing set the GC percent to %d", got)
	}
}
