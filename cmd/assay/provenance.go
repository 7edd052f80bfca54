package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-lang/assay/base/provenance"
	release "github.com/assay-lang/assay/base/version"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/runtime"
)

// specFiles lists the files a spec was compiled from, the spec first.
func specFiles(specPath string, src load.Sources) []string {
	files := []string{specPath}
	var rest []string
	for f := range src {
		// --set arguments are kept in src for snippets, under a name that
		// is no file: the plan records them, not the files.
		if f != specPath && f != compiler.SetSource {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(files, rest...)
}

// overrides lists the command-line settings a plan was compiled with, in
// the order they apply: variable files, variables, then field settings
// (--set), so that provenance, status, the report and saved plans show
// every one of them.
func (f *specFlags) overrides() []string {
	var out []string
	for _, vf := range f.varFiles {
		out = append(out, "-var-file="+vf)
	}
	for _, v := range f.vars {
		out = append(out, "-var="+v)
	}
	for _, v := range f.sets {
		out = append(out, "--set="+v)
	}
	return out
}

// pinsFor returns the checksum of the executable each plugin of p runs on
// this platform, as it is now: the assay binary itself for a built-in.
func pinsFor(p *plan.Plan, lock *host.Lock) ([]plan.PluginPin, error) {
	var pins []plan.PluginPin
	for _, s := range pluginSpecs(p) {
		lp, ok := lock.Plugin(s.Name)
		if !ok {
			return nil, fmt.Errorf("plugin %q is not in %s: run `assay init` to add it", s.Name, lock.Path())
		}
		var sum string
		var err error
		if _, builtin := lp.Builtin(); builtin {
			sum, err = host.SelfSHA256()
		} else {
			var path string
			if path, err = lock.BinaryPath(lp); err == nil {
				sum, err = host.FileSHA256(path)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("plugin %q: %w", s.Name, err)
		}
		pins = append(pins, plan.PluginPin{Name: s.Name, Source: s.Source, Platform: host.Platform, SHA256: sum})
	}
	return pins, nil
}

// checkPins refuses a plugin executable whose checksum (in pins, from
// pinsFor) differs from the one lock records for this platform. It runs
// before a run is created: found only when the plugin starts, the
// mismatch would leave a failed run that holds its --id.
func checkPins(lock *host.Lock, pins []plan.PluginPin) error {
	var errs []error
	for _, pin := range pins {
		lp, ok := lock.Plugin(pin.Name)
		if !ok {
			continue
		}
		if _, builtin := lp.Builtin(); builtin {
			continue
		}
		want := lp.Checksums[host.Platform]
		if want == "" || want == pin.SHA256 {
			continue
		}
		path, err := lock.BinaryPath(lp)
		if err != nil {
			path = pin.Source
		}
		errs = append(errs, &host.ChecksumError{Plugin: pin.Name, Path: path, Locked: want, Actual: pin.SHA256, Lock: lock.Path()})
	}
	return errors.Join(errs...)
}

// runProvenance records what a run is made from, and warns on w when the
// spec's files are not committed: such a run cannot be traced to a commit.
func runProvenance(w io.Writer, specPath string, files []string, p *plan.Plan, pins []plan.PluginPin, overrides []string, saved string) *runtime.Provenance {
	g := provenance.GitState(files)
	pv := &runtime.Provenance{
		Spec: specPath, SavedPlan: saved,
		GitCommit: g.Commit, GitDirty: g.Dirty, DirtyFiles: g.DirtyFiles, NoCommit: g.NoCommit,
		PlanHash: p.Hash, Assay: release.Build(), Overrides: overrides, Plugins: pins,
	}
	switch {
	case g.Commit == "":
		fmt.Fprintf(w, "assay: warning: %s is not committed (%s); the run records no commit\n", termSafe(specPath), termSafe(g.NoCommit))
	case g.Dirty:
		fmt.Fprintf(w, "assay: warning: running uncommitted changes to %s (commit %.12s does not hold them); the run records them as dirty\n",
			termSafe(strings.Join(g.DirtyFiles, ", ")), g.Commit)
	}
	return pv
}

// absPath is path made absolute, or path when that fails.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}
