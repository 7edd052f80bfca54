package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.hcl")
	if err := os.WriteFile(p, []byte("name = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Read(p, 1<<20)
	if err != nil || string(b) != "name = \"x\"\n" {
		t.Fatalf("got %q, %v", b, err)
	}
}

func TestReadTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.hcl")
	if err := os.WriteFile(p, []byte(strings.Repeat("a", 101)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(p, 101); err != nil || len(b) != 101 {
		t.Fatalf("a file of exactly the limit: got %d bytes, %v", len(b), err)
	}
	_, err := Read(p, 100)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Max != 100 {
		t.Fatalf("got %v, want a TooLargeError with Max 100", err)
	}
}

func TestReadNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no devices or named pipes by path")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, "/dev/zero", "/dev/urandom", fifo} {
		done := make(chan error, 1)
		go func() { _, err := Read(p, 1<<20); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: got %v, want ErrNotRegular", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Read blocked", p)
		}
	}
}
