package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/assay-lang/assay/base/boundedfile"
	"github.com/assay-lang/assay/base/version"
)

// LockSuffix is appended to a spec file's name to name its lock file:
// quickstart.hcl is locked by quickstart.hcl.lock beside it. One lock per
// spec, so running one spec never rewrites another's lock.
const LockSuffix = ".lock"

// LockFormatVersion is the lock file's format version.
const LockFormatVersion = 2

// Platform is this machine's key in a lock's checksums: GOOS/GOARCH.
var Platform = runtime.GOOS + "/" + runtime.GOARCH

// Spec is one plugin as a spec declares it.
type Spec struct {
	Name string
	// Kind is plugins.KindTrainer, KindLLM or KindBenchmark.
	Kind string
	// Source is "builtin:NAME" or a path to an executable (relative paths
	// are relative to the spec's directory).
	Source  string
	Version string
}

// Lock records exactly which plugin each name of a spec runs.
type Lock struct {
	FormatVersion int            `json:"format_version"`
	Plugins       []LockedPlugin `json:"plugins"`
	// Prompts pin the prompt and criteria files the spec's plan reads
	// (none: the key is left out, so a spec without prompt files keeps
	// the lock it had).
	Prompts []LockedPrompt `json:"prompts,omitempty"`

	// dir is the lock file's directory; relative plugin sources resolve
	// against it (it lies beside its spec).
	dir string
	// path is the lock file, for messages.
	path string
}

// LockedPlugin is one plugin of a lock.
type LockedPlugin struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Version string `json:"version,omitempty"`
	// AssayVersion is, for a built-in plugin, the Assay release whose
	// binary serves it (version.Release).
	AssayVersion string `json:"assay_version,omitempty"`
	// Checksums are, for any other plugin, its executable's SHA-256 in hex
	// per platform ("linux/amd64"), so one committed lock serves every
	// machine a team runs on.
	Checksums map[string]string `json:"checksums,omitempty"`
}

// Builtin reports whether p is served by the assay binary, and its name.
func (p LockedPlugin) Builtin() (string, bool) { return strings.CutPrefix(p.Source, BuiltinPrefix) }

// Plugin returns the locked plugin called name.
func (l *Lock) Plugin(name string) (LockedPlugin, bool) {
	for _, p := range l.Plugins {
		if p.Name == name {
			return p, true
		}
	}
	return LockedPlugin{}, false
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Dir returns the directory relative plugin sources resolve against.
func (l *Lock) Dir() string { return l.dir }

// BinaryPath returns the executable p runs: the running assay binary for
// a built-in, else its source resolved against the lock's directory.
func (l *Lock) BinaryPath(p LockedPlugin) (string, error) {
	if _, ok := p.Builtin(); ok {
		return Self()
	}
	if filepath.IsAbs(p.Source) || l.dir == "" {
		return p.Source, nil
	}
	return filepath.Join(l.dir, p.Source), nil
}

// LockPathFor returns the lock file path of the spec file at specPath.
func LockPathFor(specPath string) string { return specPath + LockSuffix }

// MaxLockBytes bounds a lock file: it lists a spec's plugins and prompt
// files, a few kilobytes.
const MaxLockBytes = 1 << 20

// ReadLock reads a lock file.
func ReadLock(path string) (*Lock, error) {
	b, err := readLockFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no plugin lock file at %s: run `assay init` to resolve the spec's plugins", path)
		}
		return nil, err
	}
	return parseLock(b, path)
}

// readLockFile reads a lock file as every file a user names is read
// (boundedfile): a regular file of at most MaxLockBytes, so a lock path
// that is /dev/zero or a named pipe is refused at once rather than read
// without end or waited on.
func readLockFile(path string) ([]byte, error) {
	b, err := boundedfile.Read(path, MaxLockBytes)
	var nr *boundedfile.NotRegularError
	var tl *boundedfile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, fmt.Errorf("%s is %s, not a regular file: a plugin lock is a regular file beside its spec; remove it and run `assay init SPEC` to write it again",
			path, boundedfile.Kind(nr.Mode))
	case errors.As(err, &tl):
		return nil, fmt.Errorf("%s is larger than %d bytes, more than any plugin lock holds: remove it and run `assay init SPEC` to write it again", path, MaxLockBytes)
	}
	return b, err
}

// parseLock decodes a lock file's bytes; path names it in errors and
// gives the directory relative sources resolve against.
func parseLock(b []byte, path string) (*Lock, error) {
	var l Lock
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: not a valid plugin lock file (%v): run `assay init -upgrade SPEC` to rewrite it", path, err)
	}
	if l.FormatVersion > LockFormatVersion {
		// Rewriting it would take the lock back to an older format: say
		// which Assay wrote it, and that upgrading Assay is the fix.
		by := "a newer Assay"
		if v := newestRelease(l.Plugins); v != "" {
			by += " (" + v + ")"
		}
		return nil, fmt.Errorf("%s was written by %s: it has lock format %d, and this assay %s reads format %d; "+
			"upgrade Assay, or, if you mean to go back to this release, re-lock with `assay init -upgrade SPEC`",
			path, by, l.FormatVersion, version.Release, LockFormatVersion)
	}
	if l.FormatVersion != LockFormatVersion {
		return nil, fmt.Errorf("%s: lock format version %d, this assay reads version %d: run `assay init -upgrade SPEC` to rewrite it", path, l.FormatVersion, LockFormatVersion)
	}
	seen := map[string]bool{}
	for i, p := range l.Plugins {
		_, builtin := p.Builtin()
		switch {
		case p.Name == "" || p.Source == "":
			return nil, fmt.Errorf("%s: plugin #%d lacks a name or source: run `assay init -upgrade SPEC` to rewrite the lock", path, i+1)
		case seen[p.Name]:
			return nil, fmt.Errorf("%s: plugin %q is locked twice: run `assay init -upgrade SPEC` to rewrite the lock", path, p.Name)
		case builtin && p.AssayVersion == "":
			return nil, fmt.Errorf("%s: built-in plugin %q lacks assay_version: run `assay init -upgrade SPEC` to rewrite the lock", path, p.Name)
		case !builtin && len(p.Checksums) == 0:
			return nil, fmt.Errorf("%s: plugin %q lacks checksums: run `assay init -upgrade SPEC` to rewrite the lock", path, p.Name)
		}
		for plat, sum := range p.Checksums {
			if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size {
				return nil, fmt.Errorf("%s: plugin %q: the %s checksum %q is not a SHA-256 in hex: run `assay init -upgrade=%s SPEC` to rewrite the entry", path, p.Name, plat, sum, p.Name)
			}
		}
		seen[p.Name] = true
	}
	if err := checkPrompts(l.Prompts, path); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	l.dir, l.path = abs, path
	return &l, nil
}

// newestRelease is the latest Assay release the lock's built-ins record, or
// "" when none does.
func newestRelease(ps []LockedPlugin) string {
	v := ""
	for _, p := range ps {
		if p.AssayVersion != "" && (v == "" || NewerRelease(p.AssayVersion, v)) {
			v = p.AssayVersion
		}
	}
	return v
}

// encode renders the lock as written: plugins sorted by name, so that the
// file diffs cleanly (encoding/json sorts the checksums' platforms).
func (l *Lock) encode() ([]byte, error) {
	l.FormatVersion = LockFormatVersion
	sort.Slice(l.Plugins, func(i, j int) bool { return l.Plugins[i].Name < l.Plugins[j].Name })
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Write writes the lock to path atomically. A file that already holds the
// same bytes is left alone, so a committed lock is not touched.
func (l *Lock) Write(path string) error {
	b, err := l.encode()
	if err != nil {
		return err
	}
	if old, err := readLockFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".assay-lock.*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// FileSHA256 returns the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
