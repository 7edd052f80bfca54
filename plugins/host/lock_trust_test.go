package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"assay/plugins"
)

// Two specs in one directory share assay.lock.json: each keeps its own
// entries, and neither can change the other's pinned checksum.
func TestInitKeepsOtherSpecsEntries(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, LockFileName)
	ctx := context.Background()
	if _, err := Init(ctx, []Spec{{Name: "a", Kind: plugins.KindTrainer, Source: echoBin}}, lockPath, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(ctx, []Spec{{Name: "b", Kind: plugins.KindTrainer, Source: testPluginBin}}, lockPath, Options{}); err != nil {
		t.Fatal(err)
	}
	lock, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lock.Plugin("a"); !ok {
		t.Errorf("the second spec's init dropped the first spec's plugin: %+v", lock.Plugins)
	}
	if _, ok := lock.Plugin("b"); !ok {
		t.Errorf("plugin b not locked: %+v", lock.Plugins)
	}

	// The same name from another source is a conflict, not a silent swap.
	before, _ := os.ReadFile(lockPath)
	_, err = Init(ctx, []Spec{{Name: "a", Kind: plugins.KindTrainer, Source: testPluginBin}}, lockPath, Options{})
	if err == nil {
		t.Fatal("Init replaced another spec's entry without --upgrade")
	}
	for _, w := range []string{`plugin "a"`, echoBin, testPluginBin, "--upgrade=a"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("conflict error %q does not mention %q", err, w)
		}
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Error("a refused Init changed the lock file")
	}
	// An explicit upgrade replaces it.
	lock, err = Init(ctx, []Spec{{Name: "a", Kind: plugins.KindTrainer, Source: testPluginBin}}, lockPath, Options{Upgrade: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if lp, _ := lock.Plugin("a"); lp.Source != testPluginBin {
		t.Errorf("upgrade locked %+v", lp)
	}
	if _, ok := lock.Plugin("b"); !ok {
		t.Error("upgrading a dropped b")
	}
	if _, err := Init(ctx, []Spec{{Name: "a", Kind: plugins.KindTrainer, Source: testPluginBin}}, lockPath, Options{Upgrade: []string{"zz"}}); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("upgrade of a plugin the spec lacks: %v", err)
	}
}

// A binary that changed after it was locked is never re-locked silently.
func TestInitRefusesChangedBinary(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, echoBin, dir)
	lockPath := filepath.Join(dir, LockFileName)
	ctx := context.Background()
	specs := []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: "./echotrainer"}}
	lock, err := Init(ctx, specs, lockPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	locked := lock.Plugins[0].SHA256
	f, _ := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("patched"))
	f.Close()
	actual, _ := FileSHA256(bin)

	_, err = Init(ctx, specs, lockPath, Options{})
	if !errors.Is(err, plugins.ErrChecksum) {
		t.Fatalf("Init of a changed binary: %v, want ErrChecksum", err)
	}
	for _, w := range []string{locked, actual, "--upgrade=echo", bin} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if read, _ := ReadLock(lockPath); read.Plugins[0].SHA256 != locked {
		t.Error("the refused Init re-locked the changed binary")
	}
	lock, err = Init(ctx, specs, lockPath, Options{UpgradeAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if lock.Plugins[0].SHA256 != actual {
		t.Errorf("upgrade locked %s, want %s", lock.Plugins[0].SHA256, actual)
	}
}

// A corrupt lock is not rewritten (that would drop every entry) unless the
// whole lock is upgraded.
func TestInitCorruptLock(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, LockFileName)
	os.WriteFile(lockPath, []byte("{"), 0o644)
	specs := []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: echoBin}}
	if _, err := Init(context.Background(), specs, lockPath, Options{}); err == nil || !strings.Contains(err.Error(), "--upgrade") {
		t.Errorf("Init over a corrupt lock: %v", err)
	}
	if _, err := Init(context.Background(), specs, lockPath, Options{UpgradeAll: true}); err != nil {
		t.Errorf("Init --upgrade over a corrupt lock: %v", err)
	}
}
