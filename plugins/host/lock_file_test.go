//go:build unix

package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A lock path that is not a regular file (a named pipe, a device, a
// directory) or is larger than any lock is refused at once by every
// reader of the lock, with its path and what to do: it is neither read
// without end (/dev/zero) nor waited on (a pipe with no writer).
func TestLockNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.hcl.lock")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.hcl.lock")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir.hcl.lock")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.hcl.lock")
	if err := os.WriteFile(big, make([]byte, MaxLockBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	specs := []Spec{{Name: "offline", Kind: "llm", Source: "builtin:offline"}}
	for _, c := range []struct{ path, kind string }{
		{fifo, "is a named pipe, not a regular file"},
		{zero, "is a character device, not a regular file"},
		{sub, "is a directory, not a regular file"},
		{big, "is larger than"},
	} {
		for name, read := range map[string]func() error{
			"ReadLock": func() error { _, err := ReadLock(c.path); return err },
			"Init":     func() error { _, err := Init(context.Background(), specs, c.path, Options{}); return err },
		} {
			done := make(chan error, 1)
			go func() { done <- read() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.path+" "+c.kind) || !strings.Contains(err.Error(), "assay init SPEC") {
					t.Errorf("%s %s: got %v, want its path, %q and what to do", name, filepath.Base(c.path), err, c.kind)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s %s: still reading after 5 s", name, filepath.Base(c.path))
			}
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v", err)
	}
}
