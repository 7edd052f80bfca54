package host

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// LockFileName is the lock file's name, written next to the spec.
const LockFileName = "assay.lock.json"

// LockFormatVersion is the lock file's format version.
const LockFormatVersion = 1

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

// Lock records exactly which binary each plugin of a spec runs.
type Lock struct {
	FormatVersion int            `json:"format_version"`
	Plugins       []LockedPlugin `json:"plugins"`

	// dir is the lock file's directory; relative binary paths resolve
	// against it so a project can move as a whole.
	dir string
}

// LockedPlugin is one plugin of a lock.
type LockedPlugin struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Version string `json:"version,omitempty"`
	// Path is the resolved binary, relative to the lock file's directory
	// when it lies below it.
	Path string `json:"path"`
	// SHA256 is the binary's checksum in hex.
	SHA256 string `json:"sha256"`
}

// Plugin returns the locked plugin called name.
func (l *Lock) Plugin(name string) (LockedPlugin, bool) {
	for _, p := range l.Plugins {
		if p.Name == name {
			return p, true
		}
	}
	return LockedPlugin{}, false
}

// Dir returns the directory relative binary paths resolve against.
func (l *Lock) Dir() string { return l.dir }

// BinaryPath returns p's binary as an absolute (or lock-relative) path.
func (l *Lock) BinaryPath(p LockedPlugin) string {
	if filepath.IsAbs(p.Path) || l.dir == "" {
		return p.Path
	}
	return filepath.Join(l.dir, p.Path)
}

// ReadLock reads a lock file.
func ReadLock(path string) (*Lock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no plugin lock file at %s: run `assay init` to resolve the spec's plugins", path)
		}
		return nil, err
	}
	return parseLock(b, path)
}

// parseLock decodes a lock file's bytes; path names it in errors and
// gives the directory relative binary paths resolve against.
func parseLock(b []byte, path string) (*Lock, error) {
	var l Lock
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: not a valid plugin lock file (%v): run `assay init --upgrade SPEC` to rewrite it", path, err)
	}
	if l.FormatVersion != LockFormatVersion {
		return nil, fmt.Errorf("%s: lock format version %d, this assay reads version %d: run `assay init --upgrade SPEC` to rewrite it", path, l.FormatVersion, LockFormatVersion)
	}
	seen := map[string]bool{}
	for i, p := range l.Plugins {
		switch {
		case p.Name == "" || p.Path == "" || p.SHA256 == "":
			return nil, fmt.Errorf("%s: plugin #%d lacks a name, path or sha256: run `assay init --upgrade SPEC` to rewrite the lock", path, i+1)
		case seen[p.Name]:
			return nil, fmt.Errorf("%s: plugin %q is locked twice: run `assay init --upgrade SPEC` to rewrite the lock", path, p.Name)
		}
		seen[p.Name] = true
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	l.dir = abs
	return &l, nil
}

// Write writes the lock to path atomically, plugins sorted by name so that
// the file diffs cleanly.
func (l *Lock) Write(path string) error {
	l.FormatVersion = LockFormatVersion
	sort.Slice(l.Plugins, func(i, j int) bool { return l.Plugins[i].Name < l.Plugins[j].Name })
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), ".assay.lock.*.tmp")
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
