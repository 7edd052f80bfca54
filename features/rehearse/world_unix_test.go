//go:build unix

package rehearse

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/assay-lang/assay/lang/load"
)

// TestLoadWorldBounded checks that a world file is read as spec files are:
// a device, a named pipe, a directory or an oversized file is refused at
// once, never read without end or waited on.
func TestLoadWorldBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hcl")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# padding\n"), load.MaxSourceBytes/10+1), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.hcl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"big": big, "dir": dir, "fifo": fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["device"] = "/dev/zero"
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			w, ds := LoadWorld(p)
			if w != nil || !ds.HasErrors() {
				t.Fatalf("LoadWorld(%s) = %v, %v; want a refusal", p, w, ds)
			}
			if msg := ds.Err().Error(); !strings.Contains(msg, "cannot read the world file") {
				t.Errorf("message %q", msg)
			}
		})
	}
}
