package journal

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

func TestReserveOnceAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Reserve("r1", Reservation{Env: "e", GPUHours: 2, USD: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Reserve("r1", Reservation{}); !errors.Is(err, ErrReserved) {
		t.Fatalf("second reserve: %v, want ErrReserved", err)
	}
	if err := j.Started("r1", &plugins.RunHandle{RunID: "r1", Handle: "pid-1"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Finished("r1", &plugins.RunResult{RunID: "r1", Status: plugins.StatusFinished, Metric: 1.5}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(KindCall, "c1", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	j.Close()

	j, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	r, ok := j.Run("r1")
	if !ok || r.Handle == nil || r.Handle.Handle != "pid-1" || r.Result == nil || r.Result.Metric != 1.5 || r.Reservation.USD != 3 {
		t.Fatalf("reopened run = %+v", r)
	}
	if _, err := j.Reserve("r1", Reservation{}); !errors.Is(err, ErrReserved) {
		t.Fatalf("reserve after reopen: %v", err)
	}
	if d, ok := j.Call(KindCall, "c1"); !ok || string(d) != `{"x":1}` {
		t.Fatalf("call = %s %v", d, ok)
	}
	if n := len(j.Runs()); n != 1 {
		t.Fatalf("runs = %d", n)
	}
}

func TestConcurrentReserveIsUnique(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := map[string]int{}
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				key := fmt.Sprintf("k%d", i)
				if _, err := j.Reserve(key, Reservation{}); err == nil {
					mu.Lock()
					won[key]++
					mu.Unlock()
				} else if !errors.Is(err, ErrReserved) {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for i := 0; i < 20; i++ {
		if n := won[fmt.Sprintf("k%d", i)]; n != 1 {
			t.Errorf("k%d reserved %d times", i, n)
		}
	}
}

func TestEventsOrderAndLast(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := 0; i < 300; i++ {
		if err := j.Append(KindStep, "loop", i); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := j.Events(KindStep)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 300 {
		t.Fatalf("events = %d", len(ev))
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].Seq <= ev[i-1].Seq {
			t.Fatal("sequence not increasing")
		}
	}
	d, ok, err := j.Last(KindStep, "loop")
	if err != nil || !ok || string(d) != "299" {
		t.Fatalf("last = %s %v %v", d, ok, err)
	}
}

// BenchmarkRealRunBookkeeping is the journal's share of a real run:
// reserve, started and finished, each committed with an fsync.
func BenchmarkRealRunBookkeeping(b *testing.B) {
	j, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	for i := 0; b.Loop(); i++ {
		key := fmt.Sprintf("run-%d", i)
		if _, err := j.Reserve(key, Reservation{Env: "e", GPUHours: 1}); err != nil {
			b.Fatal(err)
		}
		if err := j.Started(key, &plugins.RunHandle{RunID: key, Handle: key}); err != nil {
			b.Fatal(err)
		}
		if err := j.Finished(key, &plugins.RunResult{RunID: key, Status: plugins.StatusFinished}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendGrouped is a batched event (an LLM call's result).
func BenchmarkAppendGrouped(b *testing.B) {
	j, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	for i := 0; b.Loop(); i++ {
		if err := j.Append(KindCall, fmt.Sprintf("c%d", i), map[string]float64{"predicted_gain": 0.1}); err != nil {
			b.Fatal(err)
		}
	}
}

// An adopted event answers Call at once (an appended one does not until
// the journal is opened again), and is on disk like any other.
func TestAdopt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Adopt(KindPolicy, "policy/0", []byte(`{"step":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(KindPolicy, "policy/1", []byte(`{"step":2}`)); err != nil {
		t.Fatal(err)
	}
	if d, ok := j.Call(KindPolicy, "policy/0"); !ok || string(d) != `{"step":1}` {
		t.Errorf("adopted event: %q, %t", d, ok)
	}
	if _, ok := j.Call(KindPolicy, "policy/1"); ok {
		t.Error("an appended event answered Call in the same process")
	}
	if err := j.Adopt(KindFinished, "r1", []byte(`{}`)); err == nil {
		t.Error("a real run's event was adopted")
	}
	j.Close()
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.Call(KindPolicy, "policy/0"); !ok {
		t.Error("the adopted event is not on disk")
	}
}
