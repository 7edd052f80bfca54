package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	release "github.com/assay-lang/assay/base/version"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins/host"
)

// maxSavedPlan bounds what is read as a saved plan.
const maxSavedPlan = 64 << 20

// savePlan writes p to out as a saved plan, pinning the spec's files (by
// SHA-256) and its plugins' executables (by checksum).
func savePlan(ctx context.Context, out, specPath string, src load.Sources, p *plan.Plan, f *specFlags, log io.Writer) error {
	lock, err := lockFor(ctx, specPath, p, log)
	if err != nil {
		return err
	}
	pins, err := pinsFor(p, lock)
	if err != nil {
		return userErrorf("%v", err)
	}
	if err := lockedPins(lock, pins); err != nil {
		return userErrorf("not saving the plan to %s: %s", out, withSpec(err, specPath))
	}
	base, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return err
	}
	s := plan.Saved{Format: plan.SavedFormat, Assay: release.Build(), Spec: relTo(base, specPath),
		Overrides: f.overrides(), Plugins: pins, Plan: p}
	for _, file := range specFiles(specPath, src) {
		b, ok := src[file]
		if !ok {
			if b, err = os.ReadFile(file); err != nil {
				return userErrorf("reading %s: %v", file, err)
			}
		}
		s.Files = append(s.Files, plan.FileHash{Path: relTo(base, file), SHA256: sha256Hex(b)})
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(out, append(b, '\n')); err != nil {
		return userErrorf("writing the saved plan: %v", err)
	}
	return nil
}

// readSaved reads path as a saved plan; ok is false when it is not one
// (a spec).
func readSaved(path string) (s *plan.Saved, ok bool, err error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSavedPlan {
		return nil, false, nil // not a saved plan; loading the spec says what is wrong
	}
	b, err := os.ReadFile(path)
	if err != nil || !plan.IsSaved(b) {
		return nil, false, nil
	}
	s, err = plan.ParseSaved(b)
	if err != nil {
		return nil, true, userErrorf("%s: %v%s", path, err, saveAgain(b, path))
	}
	return s, true, nil
}

// saveAgain is the command that saves the plan at path again from the
// spec it names, as a line to end a refusal with; "" when it names none.
// It reads the spec's name alone, so it serves a plan of any format.
func saveAgain(b []byte, path string) string {
	var probe struct {
		Spec string `json:"spec"`
	}
	if json.Unmarshal(b, &probe) != nil || probe.Spec == "" {
		return ""
	}
	spec := probe.Spec
	if !filepath.IsAbs(spec) {
		base, err := filepath.Abs(filepath.Dir(path))
		if err != nil {
			return ""
		}
		spec = filepath.Join(base, spec)
	}
	return fmt.Sprintf("\nsave the plan again: assay plan -out %s %s", path, fromWorkDir(spec))
}

// checkSaved refuses a saved plan whose spec files or plugin executables
// changed since it was saved, naming each change; otherwise it returns the
// spec's path and lock, which the run uses.
func checkSaved(s *plan.Saved, planPath string) (specPath string, lock *host.Lock, err error) {
	base, err := filepath.Abs(filepath.Dir(planPath))
	if err != nil {
		return "", nil, err
	}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	var errs []error
	for _, f := range s.Files {
		b, err := os.ReadFile(resolve(f.Path))
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("spec file %s is gone since the plan was saved (%v)", f.Path, err))
		case sha256Hex(b) != f.SHA256:
			errs = append(errs, fmt.Errorf("spec file %s changed since the plan was saved (SHA-256 %.12s…, was %.12s…)", f.Path, sha256Hex(b), f.SHA256))
		}
	}
	specPath = resolve(s.Spec)
	lockPath := host.LockPathFor(specPath)
	lock, err = host.ReadLock(lockPath)
	if err == nil {
		err = host.Verify(lock, lockPath, pluginSpecs(s.Plan))
	}
	if err != nil {
		errs = append(errs, err)
	} else {
		now, err := pinsFor(s.Plan, lock)
		if err != nil {
			errs = append(errs, err)
		}
		byName := map[string]plan.PluginPin{}
		for _, p := range now {
			byName[p.Name] = p
		}
		for _, was := range s.Plugins {
			cur, ok := byName[was.Name]
			switch {
			case !ok:
				if err == nil {
					errs = append(errs, fmt.Errorf("plugin %q of the saved plan is not in the spec's plan", was.Name))
				}
			case cur.Platform != was.Platform:
				errs = append(errs, fmt.Errorf("plugin %q was pinned on %s; this is %s", was.Name, was.Platform, cur.Platform))
			case cur.Source != was.Source || cur.SHA256 != was.SHA256:
				what := "its executable " + cur.Source
				if _, builtin := strings.CutPrefix(cur.Source, host.BuiltinPrefix); builtin {
					what = "the assay binary that serves it"
				}
				errs = append(errs, fmt.Errorf("plugin %q changed since the plan was saved: %s has SHA-256 %.12s…, was %.12s…", was.Name, what, cur.SHA256, was.SHA256))
			}
		}
		if len(now) != len(s.Plugins) && err == nil {
			errs = append(errs, fmt.Errorf("the saved plan pins %d plugins, its plan declares %d", len(s.Plugins), len(now)))
		}
	}
	if len(errs) > 0 {
		return "", nil, userErrorf("%s: refusing the saved plan:\n  %s\nsave the plan again: assay plan -out %s %s",
			planPath, strings.ReplaceAll(withSpec(errors.Join(errs...), specPath), "\n", "\n  "), planPath, fromWorkDir(specPath))
	}
	return specPath, lock, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// relTo is path relative to base when it lies below base, else absolute.
func relTo(base, path string) string {
	abs := absPath(path)
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}

// fromWorkDir is path as the user can paste it from the working
// directory: relative when it lies below it, else absolute. (A saved plan
// records its spec relative to the plan file.)
func fromWorkDir(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return absPath(path)
	}
	return relTo(wd, path)
}

// writeFileAtomic writes b to path through a temporary file beside it.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".assay-plan.*.tmp")
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
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
