package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// Each spec has its own lock beside it: initialising one spec never
// touches another's, even in the same directory.
func TestLockPerSpec(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	aLock, bLock := LockPathFor(filepath.Join(dir, "a.hcl")), LockPathFor(filepath.Join(dir, "b.hcl"))
	if aLock != filepath.Join(dir, "a.hcl.lock") {
		t.Errorf("LockPathFor(a.hcl) = %s", aLock)
	}
	if _, err := Init(ctx, []Spec{{Name: "trainer", Kind: plugins.KindTrainer, Source: echoBin}}, aLock, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(aLock)
	if _, err := Init(ctx, []Spec{{Name: "trainer", Kind: plugins.KindTrainer, Source: testPluginBin}}, bLock, Options{}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(aLock); string(after) != string(before) {
		t.Error("initialising b.hcl changed a.hcl's lock")
	}
}

// A declaration that changed is a conflict, not a silent swap; an explicit
// upgrade replaces it, and a plugin the spec dropped leaves the lock, with
// a line saying so.
func TestInitConflictAndUpgrade(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, testLock)
	ctx := context.Background()
	two := []Spec{{Name: "a", Kind: plugins.KindTrainer, Source: echoBin}, {Name: "b", Kind: plugins.KindTrainer, Source: testPluginBin}}
	if _, err := Init(ctx, two, lockPath, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(lockPath)
	changed := []Spec{{Name: "a", Kind: plugins.KindTrainer, Source: testPluginBin}, two[1]}
	_, err := Init(ctx, changed, lockPath, Options{})
	if err == nil {
		t.Fatal("Init replaced an entry without -upgrade")
	}
	for _, w := range []string{`plugin "a"`, echoBin, testPluginBin, "-upgrade=a", testLock} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("conflict error %q does not mention %q", err, w)
		}
	}
	lock, _ := ReadLock(lockPath)
	var ce *ConflictError
	if err := Verify(lock, lockPath, changed); !errors.As(err, &ce) {
		t.Errorf("Verify of a changed declaration: %v, want a *ConflictError", err)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Error("a refused Init changed the lock file")
	}
	var log strings.Builder
	lock, err = Init(ctx, changed[:1], lockPath, Options{Upgrade: []string{"a"}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if lp, _ := lock.Plugin("a"); lp.Source != testPluginBin {
		t.Errorf("upgrade locked %+v", lp)
	}
	if _, ok := lock.Plugin("b"); ok {
		t.Error("a plugin the spec no longer declares stayed in the lock")
	}
	for _, w := range []string{`upgraded plugin "a"`, `removed plugin "b"`} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("Init log %q does not say %q", log.String(), w)
		}
	}
	if _, err := Init(ctx, changed[:1], lockPath, Options{Upgrade: []string{"zz"}}); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("upgrade of a plugin the spec lacks: %v", err)
	}
}

// A binary that changed after it was locked is never re-locked silently.
func TestInitRefusesChangedBinary(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, echoBin, dir)
	lockPath := filepath.Join(dir, testLock)
	ctx := context.Background()
	specs := []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: "./echotrainer"}}
	lock, err := Init(ctx, specs, lockPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	locked := lock.Plugins[0].Checksums[Platform]
	f, _ := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("patched"))
	f.Close()
	actual, _ := FileSHA256(bin)

	_, err = Init(ctx, specs, lockPath, Options{})
	if !errors.Is(err, plugins.ErrChecksum) {
		t.Fatalf("Init of a changed binary: %v, want ErrChecksum", err)
	}
	for _, w := range []string{locked, actual, "-upgrade=echo", bin} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if read, _ := ReadLock(lockPath); read.Plugins[0].Checksums[Platform] != locked {
		t.Error("the refused Init re-locked the changed binary")
	}
	lock, err = Init(ctx, specs, lockPath, Options{UpgradeAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if lock.Plugins[0].Checksums[Platform] != actual {
		t.Errorf("upgrade locked %s, want %s", lock.Plugins[0].Checksums[Platform], actual)
	}
}

// A lock made on another platform lacks this one's checksum: run refuses
// (Verify, Open) and says to run init, which adds it and keeps the other.
func TestLockAddsPlatform(t *testing.T) {
	dir := t.TempDir()
	copyBinary(t, echoBin, dir)
	lockPath := filepath.Join(dir, testLock)
	other := "plan9/mips"
	foreign := strings.Repeat("ab", 32)
	os.WriteFile(lockPath, []byte(`{"format_version": 2, "plugins": [{"name": "echo", "kind": "trainer", "source": "./echotrainer", "checksums": {"`+other+`": "`+foreign+`"}}]}`), 0o644)
	specs := []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: "./echotrainer"}}
	lock, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(lock, lockPath, specs); err == nil || !strings.Contains(err.Error(), "run `assay init SPEC`") || !strings.Contains(err.Error(), other) {
		t.Errorf("Verify of a lock from another platform: %v", err)
	}
	if _, err := Open(context.Background(), lock, "echo"); !errors.Is(err, plugins.ErrPluginStart) {
		t.Errorf("Open without this platform's checksum: %v", err)
	}
	var log strings.Builder
	lock, err = Init(context.Background(), specs, lockPath, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	sums := lock.Plugins[0].Checksums
	if sums[other] != foreign || len(sums[Platform]) != 64 || !strings.Contains(log.String(), "added the "+Platform+" checksum") {
		t.Errorf("checksums after init: %v (log %q)", sums, log.String())
	}
}

// A corrupt lock is rewritten only when the whole lock is upgraded.
func TestInitCorruptLock(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, testLock)
	os.WriteFile(lockPath, []byte("{"), 0o644)
	specs := []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: echoBin}}
	if _, err := Init(context.Background(), specs, lockPath, Options{}); err == nil || !strings.Contains(err.Error(), "-upgrade") {
		t.Errorf("Init over a corrupt lock: %v", err)
	}
	if _, err := Init(context.Background(), specs, lockPath, Options{UpgradeAll: true}); err != nil {
		t.Errorf("Init -upgrade over a corrupt lock: %v", err)
	}
}
