package budget

import (
	"testing"
	"time"
)

func TestRunReturns(t *testing.T) {
	v, ex := Run(Limits{}, func() int { return 7 })
	if v != 7 || ex != Within {
		t.Fatalf("got %d, %v", v, ex)
	}
}

func TestRunTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	v, ex := Run(Limits{Timeout: 50 * time.Millisecond}, func() int { <-release; return 7 })
	if v != 0 || ex != Time {
		t.Fatalf("got %d, %v", v, ex)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run waited %v past a 50ms timeout", d)
	}
}

func TestRunMemory(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var keep [][]byte
	_, ex := Run(Limits{MaxHeapGrowth: 8 << 20}, func() int {
		// Grow the heap well past the ceiling, then hold it until the test
		// ends, so the poll must see it.
		for i := 0; i < 64; i++ {
			keep = append(keep, make([]byte, 1<<20))
		}
		<-release
		return len(keep)
	})
	if ex != Memory {
		t.Fatalf("got %v, want Memory", ex)
	}
}
