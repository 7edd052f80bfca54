package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A journal open for writing holds the run lock: a second writer (a second
// `assay resume`) is refused with who holds it, readers are not.
func TestRunLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Reserve("r1", Reservation{}); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path)
	var le *LockedError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	host, _ := os.Hostname()
	if le.Holder == nil || le.Holder.PID != os.Getpid() || le.Holder.Host != host || time.Since(le.Holder.Since) > time.Minute {
		t.Errorf("holder %+v, want this process on %s, just now", le.Holder, host)
	}
	for _, w := range []string{"pid " + strconv.Itoa(os.Getpid()), host, "since"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if h, held, err := HeldBy(path); err != nil || !held || h == nil || h.PID != os.Getpid() {
		t.Errorf("HeldBy while open = %+v, %v, %v", h, held, err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("OpenReadOnly while a writer holds the lock: %v", err)
	}
	if len(r.Runs()) != 1 {
		t.Errorf("reader sees %d runs, want 1", len(r.Runs()))
	}
	if err := r.SetMeta("x", 1); err == nil {
		t.Error("a read-only journal accepted a write")
	}
	r.Close()

	j.Close()
	if _, held, err := HeldBy(path); err != nil || held {
		t.Errorf("HeldBy after Close = %v, %v", held, err)
	}
	j2, err := Open(path)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	j2.Close()
}

// An empty journal file (the run stopped before it wrote anything) is
// reported as such and left untouched; a corrupt one is an error naming
// the file, not a panic.
func TestOpenReadOnlyEmptyAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenReadOnly(empty); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty journal: %v, want ErrEmpty", err)
	}
	if fi, _ := os.Stat(empty); fi.Size() != 0 {
		t.Errorf("reading an empty journal wrote %d bytes to it", fi.Size())
	}
	bad := filepath.Join(dir, "bad.db")
	os.WriteFile(bad, []byte(strings.Repeat("not a database ", 100)), 0o644)
	_, err := OpenReadOnly(bad)
	if err == nil || !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupt journal: %v, want ErrUnreadable naming %s", err, bad)
	}
	if _, err := OpenReadOnly(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing journal: %v", err)
	}
}
