package host

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// replacedChild marks the copy of this test binary that
// TestBuiltinAfterUpgrade starts.
const replacedChild = "ASSAY_HOST_TEST_REPLACED_CHILD"

// A built-in plugin is started from the running image, not from the file
// at the executable's path: replacing that file mid-run (an upgrade of
// assay) neither breaks a plugin's start nor runs another binary. A copy
// of this test binary replaces itself with garbage, then opens a built-in.
func TestBuiltinAfterUpgrade(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the running image is named by /proc/self/exe on Linux only")
	}
	if os.Getenv(replacedChild) == "1" {
		replacedChildOpens(t)
		return
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "assay")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestBuiltinAfterUpgrade$", "-test.v")
	cmd.Env = append(os.Environ(), replacedChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestBuiltinAfterUpgrade") {
		t.Fatalf("the replaced binary could not start a built-in: %v\n%s", err, out)
	}
}

func replacedChildOpens(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The upgrade: a new file at the path (the running image stays).
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho not assay\nexit 9\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(t.TempDir(), testLock)
	lock, err := Init(context.Background(), []Spec{{Name: "llm", Kind: plugins.KindLLM, Source: "builtin:offline"}}, lockPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(context.Background(), lock, "llm")
	if err != nil {
		t.Fatalf("Open after the upgrade: %v", err)
	}
	defer p.Close()
	if !p.Alive() {
		t.Fatal("the built-in is not running")
	}
	// Started from /proc/self/exe, it names itself as ps and top show it.
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.cur.cmd.Process.Pid))
	if err != nil || strings.TrimSpace(string(comm)) != "assay" {
		t.Errorf("the plugin's process is named %q (%v), want assay", comm, err)
	}
	if got, _ := Self(); got != bin {
		t.Errorf("Self() = %q, want %q (the path errors and provenance name)", got, bin)
	}
	if self.sum != "" {
		t.Error("opening a built-in hashed the binary: the running image needs no checksum")
	}
}
