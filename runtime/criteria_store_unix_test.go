//go:build unix

package runtime

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A store entry that is a named pipe is an entry that cannot be read, at
// once: get neither waits for a writer nor reads a device without end.
func TestCriteriaStoreEntryNotRegular(t *testing.T) {
	v, role := storeFixture()
	id := criteriaIdentityOf(v, role, criteriaRequest("env", "t1", "", ""))
	d, _ := id.digest()
	s := storeIn(t.TempDir())
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(s.dir, d+".json"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := s.get(d, &id); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a named pipe read as an entry")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("get waited on a named pipe")
	}
}
