package journal

import (
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
