package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// A scratch journal (NoSync, a rehearsal's) keeps its WAL index in the
// process, so it makes no shared-memory file; every event written from
// several goroutines, over many group commits that reuse their buffers,
// reads back as written, by a reader after Close and by a resume.
func TestScratchJournalReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := OpenWith(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("w%d/%d", w, i)
				if err := j.Append(KindCall, key, map[string]string{"key": key}); err != nil {
					t.Error(err)
					return
				}
				if i%50 == 0 {
					// A durable event flushes whatever is pending mid-batch.
					if err := j.Commit(KindStep, key, i); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if _, err := os.Stat(path + "-shm"); !os.IsNotExist(err) {
		t.Errorf("a scratch journal made %s-shm (%v); its WAL index belongs in the process", path, err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, path, writers*each)
	// A resume opens it for writing again, and sees the calls.
	j, err = OpenWith(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := j.Call(KindCall, "w3/299"); !ok || string(d) != `{"key":"w3/299"}` {
		t.Errorf("resumed call w3/299 = %s, %v", d, ok)
	}
	if _, err := j.Reserve("r", Reservation{Env: "e"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Started("r", &plugins.RunHandle{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, path, writers*each)
}

// checkCalls reads the journal at path as status does and checks it has n
// call events, each holding its own key.
func checkCalls(t *testing.T, path string, n int) {
	t.Helper()
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ev, err := r.Events(KindCall)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != n {
		t.Fatalf("%d call events, want %d", len(ev), n)
	}
	for _, e := range ev {
		if want := fmt.Sprintf(`{"key":%q}`, e.Key); string(e.Data) != want {
			t.Fatalf("call %s holds %s, want %s", e.Key, e.Data, want)
		}
	}
}

// A journal in memory (a rehearsal's whose folder goes) writes no
// database file; its events, written from several goroutines over many
// group commits, read back as written, and a journal opened again with the
// same Memory (a resume) finds its calls and its reservations, which it
// still reserves only once. A second journal cannot take a Memory that is
// open.
func TestMemoryJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	m := NewMemory()
	j, err := OpenWith(path, Options{Memory: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWith(filepath.Join(t.TempDir(), "journal.db"), Options{Memory: m}); err == nil {
		t.Fatal("a second journal opened a Memory that is open")
	}
	// More events than a chunk of the log holds (memChunk).
	const writers, each = 4, 1100
	writeCalls(t, j, writers, each)
	if _, err := j.Reserve("r", Reservation{Env: "e", USD: 2}); err != nil {
		t.Fatal(err)
	}
	if err := j.Started("r", &plugins.RunHandle{RunID: "r", Handle: "h"}); err != nil {
		t.Fatal(err)
	}
	if d, ok, err := j.Last(KindStep, "w2/250"); err != nil || !ok || string(d) != "250" {
		t.Errorf("last step w2/250 = %s, %v, %v", d, ok, err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a journal in memory made %s (%v)", path, err)
	}
	j, err = OpenWith(path, Options{Memory: m})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if d, ok := j.Call(KindCall, "w3/299"); !ok || string(d) != `{"key":"w3/299"}` {
		t.Errorf("resumed call w3/299 = %s, %v", d, ok)
	}
	if r, ok := j.Run("r"); !ok || r.Handle == nil || r.Handle.Handle != "h" || r.Reservation.USD != 2 {
		t.Errorf("resumed run r = %+v, %v", r, ok)
	}
	if _, err := j.Reserve("r", Reservation{}); !errors.Is(err, ErrReserved) {
		t.Errorf("reserve after resume: %v, want ErrReserved", err)
	}
	checkCallEvents(t, j, writers*each)
	all, err := j.Events("")
	if err != nil {
		t.Fatal(err)
	}
	// The calls, a step per 50 calls per writer, the reservation and its
	// handle; the resumed journal's sequence goes on from there.
	if want := writers*each + writers*each/50 + 2; len(all) != want || all[len(all)-1].Seq != int64(want) {
		t.Fatalf("%d events ending at %d, want %d", len(all), all[len(all)-1].Seq, want)
	}
}

// writeCalls appends each call events from each of writers goroutines, a
// durable step event every 50 calls of one.
func writeCalls(t *testing.T, j *Journal, writers, each int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("w%d/%d", w, i)
				if err := j.Append(KindCall, key, map[string]string{"key": key}); err != nil {
					t.Error(err)
					return
				}
				if i%50 == 0 {
					if err := j.Commit(KindStep, key, i); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// checkCallEvents checks j's call events: n of them in sequence order,
// each key once and holding itself.
func checkCallEvents(t *testing.T, j *Journal, n int) {
	t.Helper()
	ev, err := j.Events(KindCall)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != n {
		t.Fatalf("%d call events, want %d", len(ev), n)
	}
	seen := map[string]bool{}
	for i, e := range ev {
		if want := fmt.Sprintf(`{"key":%q}`, e.Key); string(e.Data) != want || seen[e.Key] {
			t.Fatalf("call %s holds %s, want %s once", e.Key, e.Data, want)
		}
		seen[e.Key] = true
		if i > 0 && e.Seq <= ev[i-1].Seq {
			t.Fatal("sequence not increasing")
		}
	}
}
