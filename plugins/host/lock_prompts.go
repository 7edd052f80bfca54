package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
)

// LockedPrompt pins one prompt or criteria file a spec's plan reads: what
// it is for (Use: "role critic system", "task example/spirals criteria"),
// the file as the spec or manifest names it, and the SHA-256 in hex of the
// text the plan holds from it (the file without its final newline).
type LockedPrompt struct {
	Use    string `json:"use"`
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// PromptDigest is the digest a LockedPrompt records of text.
func PromptDigest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// PromptChangedError is a prompt file whose text differs from the one the
// lock pins: refused until the change is accepted with -upgrade-prompts.
type PromptChangedError struct {
	Locked, Actual LockedPrompt
	Path           string
}

func (e *PromptChangedError) Error() string {
	return fmt.Sprintf("prompt file %s (%s) has SHA-256 %.12s, but %s records %.12s: it changed since it was locked; review the change, and if it is deliberate, accept it with `assay init -upgrade-prompts SPEC`",
		e.Actual.File, e.Actual.Use, e.Actual.SHA256, e.Path, e.Locked.SHA256)
}

// checkPrompts checks a lock's prompt entries as read.
func checkPrompts(ps []LockedPrompt, path string) error {
	for i, p := range ps {
		if b, err := hex.DecodeString(p.SHA256); err != nil || len(b) != sha256.Size || p.Use == "" || p.File == "" {
			return fmt.Errorf("%s: prompt entry #%d is not a use, a file and a SHA-256 in hex: run `assay init -upgrade-prompts SPEC` to rewrite it", path, i+1)
		}
	}
	return nil
}

// mergePrompts is the prompt entries Init writes: want, where every entry
// the old lock has for the same use must be the same unless upgrade;
// entries of uses the plan no longer has are dropped. Each change is
// logged.
func mergePrompts(old, want []LockedPrompt, upgrade bool, lockPath string, logf func(string, ...any)) ([]LockedPrompt, error) {
	name := filepath.Base(lockPath)
	var errs []error
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.Use] = true
		prev, had, same := lockedFor(old, w)
		switch {
		case !had:
			logf("%s: locked prompt file %s (%s)", name, w.File, w.Use)
		case !same && !upgrade:
			errs = append(errs, &PromptChangedError{Locked: prev, Actual: w, Path: lockPath})
		case !same:
			logf("%s: upgraded prompt file %s (%s)", name, w.File, w.Use)
		}
	}
	for _, p := range old {
		if !wanted[p.Use] {
			logf("%s: removed prompt file %s (%s), which the plan no longer reads", name, p.File, p.Use)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := append([]LockedPrompt(nil), want...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Use != out[j].Use {
			return out[i].Use < out[j].Use
		}
		return out[i].SHA256 < out[j].SHA256
	})
	return out, nil
}

// lockedFor is the entry of ps for w's use: whether there is one, and
// whether one with w's file and digest is among them (a sweep's variants
// may read several texts for one use).
func lockedFor(ps []LockedPrompt, w LockedPrompt) (prev LockedPrompt, had, same bool) {
	for _, p := range ps {
		if p.Use != w.Use {
			continue
		}
		prev, had = p, true
		if p.SHA256 == w.SHA256 && p.File == w.File {
			return p, true, true
		}
	}
	return prev, had, false
}

// VerifyPrompts checks that lock pins every prompt file of want with the
// same text, changing nothing: a file the lock lacks or whose text
// changed is an error that says which command fixes it.
func VerifyPrompts(lock *Lock, lockPath string, want []LockedPrompt) error {
	var errs []error
	for _, w := range want {
		prev, had, same := lockedFor(lock.Prompts, w)
		switch {
		case !had:
			errs = append(errs, fmt.Errorf("prompt file %s (%s) is not in %s: run `assay init SPEC` to add it", w.File, w.Use, lockPath))
		case !same:
			errs = append(errs, &PromptChangedError{Locked: prev, Actual: w, Path: lockPath})
		}
	}
	return errors.Join(errs...)
}
