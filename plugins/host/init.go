package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/base/version"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// BuiltinPrefix marks a plugin source served by the assay binary itself.
const BuiltinPrefix = "builtin:"

// Options tune Init.
type Options struct {
	// SpecDir is the directory relative plugin paths resolve against.
	// Default: the lock file's directory (the spec's).
	SpecDir string
	// Upgrade names plugins whose existing lock entries may change (new
	// checksum, kind, source, version or Assay release); UpgradeAll allows
	// it for every plugin of the spec. Without them Init refuses any
	// change to an entry.
	Upgrade    []string
	UpgradeAll bool
	// Prompts are the prompt and criteria files the plan reads, to pin;
	// UpgradePrompts (or UpgradeAll) lets a pinned one's text change.
	Prompts        []LockedPrompt
	UpgradePrompts bool
	// Log receives one line per change Init makes to the lock (nil:
	// nowhere), so that no change is silent.
	Log io.Writer
	// NoWrite resolves and checks the plugins as Init always does and
	// returns the lock it would write, but writes nothing (and logs no
	// change): for commands that only read, such as assay prompt.
	NoWrite bool
}

var builtinName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// builtinNames lists the built-in plugins: those with a config schema.
func builtinNames() []string {
	var names []string
	for _, s := range pluginconfig.All {
		names = append(names, s.Builtin)
	}
	sort.Strings(names)
	return names
}

// ConflictError reports a plugin whose spec declaration differs from the
// entry the lock already holds for that name (an earlier version of the
// spec locked it).
type ConflictError struct {
	Plugin string
	Locked LockedPlugin
	Spec   Spec
	Path   string // the lock file
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("plugin %q: the spec declares kind %s, source %s, version %q, but %s locks kind %s, source %s, version %q; "+
		"if the change is deliberate, run `assay init -upgrade=%s SPEC` to re-lock it",
		e.Plugin, e.Spec.Kind, e.Spec.Source, e.Spec.Version, filepath.Base(e.Path), e.Locked.Kind, e.Locked.Source, e.Locked.Version, e.Plugin)
}

// ReleaseError reports a built-in plugin locked by another Assay release.
type ReleaseError struct {
	Plugin string
	Locked string
	Actual string
	Path   string // the lock file
}

func (e *ReleaseError) Error() string {
	if NewerRelease(e.Locked, e.Actual) {
		return fmt.Sprintf("plugin %q is built in, and %s was written by a newer Assay (%s) than this one (%s): "+
			"upgrade Assay to %s or later; or, if you mean to go back to this release, re-lock with `assay init -upgrade=%s SPEC`",
			e.Plugin, filepath.Base(e.Path), e.Locked, e.Actual, e.Locked, e.Plugin)
	}
	return fmt.Sprintf("plugin %q is built in, and %s locks it to assay %s, but this is assay %s; "+
		"run the locked release, or run `assay init -upgrade=%s SPEC` to re-lock it to this one",
		e.Plugin, filepath.Base(e.Path), e.Locked, e.Actual, e.Plugin)
}

// NewerRelease reports whether release a is later than b, comparing
// dot-separated numbers ("0.10.0" is later than "0.9.1"); a part that is
// not a number compares as text.
func NewerRelease(a, b string) bool {
	as, bs := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		x, y := "0", "0"
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		xn, xerr := strconv.Atoi(x)
		yn, yerr := strconv.Atoi(y)
		switch {
		case xerr == nil && yerr == nil && xn != yn:
			return xn > yn
		case (xerr != nil || yerr != nil) && x != y:
			return x > y
		}
	}
	return false
}

// Unwrap makes errors.Is(err, plugins.ErrPluginStart) true.
func (e *ReleaseError) Unwrap() error { return plugins.ErrPluginStart }

// Init resolves every plugin of one spec and writes the spec's lock to
// lockPath. It reports every bad declaration at once.
//
// An entry the lock holds is never changed without an upgrade
// (Options.Upgrade, Options.UpgradeAll): an executable whose checksum
// differs from the one locked for this platform is refused with a
// *ChecksumError, a declaration with another kind, source or version with
// a *ConflictError, a built-in locked by another Assay release with a
// *ReleaseError. Without an upgrade Init only adds: plugins the lock lacks,
// and this platform's checksum of a plugin locked on other platforms. It
// drops entries of plugins the spec no longer declares. Every change is
// written to Options.Log; nothing is written unless every plugin resolves,
// and an unchanged lock file is left untouched.
func Init(ctx context.Context, specs []Spec, lockPath string, opts Options) (*Lock, error) {
	if lockPath == "" {
		return nil, errors.New("host.Init: no lock file path given")
	}
	lockDir, err := filepath.Abs(filepath.Dir(lockPath))
	if err != nil {
		return nil, err
	}
	if opts.SpecDir == "" {
		opts.SpecDir = lockDir
	}
	if opts.SpecDir, err = filepath.Abs(opts.SpecDir); err != nil {
		return nil, err
	}
	// Changes are told once the lock is written: a refused Init changes
	// nothing and says only why.
	var changes []string
	logf := func(format string, args ...any) {
		changes = append(changes, fmt.Sprintf(format, args...))
	}
	if err := checkSpecs(specs, opts.Upgrade); err != nil {
		return nil, err
	}
	old, err := existingLock(lockPath, opts.UpgradeAll)
	if err != nil {
		return nil, err
	}
	lock := &Lock{FormatVersion: LockFormatVersion, dir: lockDir, path: lockPath}
	if lock.Plugins, err = lockPlugins(ctx, specs, old, opts, lockPath, logf); err != nil {
		return nil, err
	}
	if lock.Prompts, err = mergePrompts(old.Prompts, opts.Prompts, opts.UpgradeAll || opts.UpgradePrompts, lockPath, logf); err != nil {
		return nil, err
	}
	if opts.NoWrite {
		return lock, nil
	}
	if err := lock.Write(lockPath); err != nil {
		return nil, fmt.Errorf("writing the plugin lock: %w", err)
	}
	if opts.Log != nil {
		for _, c := range changes {
			fmt.Fprintln(opts.Log, c)
		}
	}
	return lock, nil
}

// lockPlugins is the lock entry of every plugin of specs, each resolved
// against the entry old holds (lockEntry), in order. It tells logf what it
// locks, upgrades and drops; a conflict or a plugin that does not resolve
// fails it, with every such error at once.
func lockPlugins(ctx context.Context, specs []Spec, old *Lock, opts Options, lockPath string, logf func(string, ...any)) ([]LockedPlugin, error) {
	upgrade := map[string]bool{}
	for _, n := range opts.Upgrade {
		upgrade[n] = true
	}
	name := filepath.Base(lockPath)
	var out []LockedPlugin
	var errs []error
	declared := map[string]bool{}
	for _, s := range specs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		declared[s.Name] = true
		prev, had := old.Plugin(s.Name)
		up := opts.UpgradeAll || upgrade[s.Name]
		if had && !up && (prev.Kind != s.Kind || prev.Source != s.Source || prev.Version != s.Version) {
			errs = append(errs, &ConflictError{Plugin: s.Name, Locked: prev, Spec: s, Path: lockPath})
			continue
		}
		lp, err := lockEntry(s, prev, had && !up, opts.SpecDir, lockPath, logf)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch {
		case !had:
			logf("%s: locked plugin %q (%s)", name, s.Name, s.Source)
		case up && !sameEntry(prev, lp):
			logf("%s: upgraded plugin %q (%s)", name, s.Name, s.Source)
		}
		out = append(out, lp)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, p := range old.Plugins {
		if !declared[p.Name] {
			logf("%s: removed plugin %q, which the spec no longer declares", name, p.Name)
		}
	}
	return out, nil
}

// lockEntry is the lock entry of plugin s. keep says the entry prev that the
// lock holds must stay as it is (no upgrade): a built-in of another Assay
// release or an executable with another checksum for this platform is
// refused, and the checksums of other platforms are kept.
func lockEntry(s Spec, prev LockedPlugin, keep bool, specDir, lockPath string, logf func(string, ...any)) (LockedPlugin, error) {
	lp := LockedPlugin{Name: s.Name, Kind: s.Kind, Source: s.Source, Version: s.Version}
	if _, ok := strings.CutPrefix(s.Source, BuiltinPrefix); ok {
		lp.AssayVersion = version.Release
		if keep && prev.AssayVersion != lp.AssayVersion {
			return lp, &ReleaseError{Plugin: s.Name, Locked: prev.AssayVersion, Actual: lp.AssayVersion, Path: lockPath}
		}
		return lp, nil
	}
	bin, err := resolveExecutable(specDir, s.Source)
	var sum string
	if err == nil {
		sum, err = FileSHA256(bin)
	}
	if err != nil {
		return lp, fmt.Errorf("plugin %q (%s): %w", s.Name, s.Source, err)
	}
	lp.Checksums = map[string]string{}
	if keep {
		for plat, c := range prev.Checksums {
			lp.Checksums[plat] = c
		}
		if locked, ok := prev.Checksums[Platform]; ok && locked != sum {
			return lp, &ChecksumError{Plugin: s.Name, Path: bin, Locked: locked, Actual: sum, Lock: lockPath}
		}
		if _, ok := prev.Checksums[Platform]; !ok {
			logf("%s: added the %s checksum of plugin %q", filepath.Base(lockPath), Platform, s.Name)
		}
	}
	lp.Checksums[Platform] = sum
	return lp, nil
}

func sameEntry(a, b LockedPlugin) bool {
	if a.Kind != b.Kind || a.Source != b.Source || a.Version != b.Version || a.AssayVersion != b.AssayVersion || len(a.Checksums) != len(b.Checksums) {
		return false
	}
	for k, v := range a.Checksums {
		if b.Checksums[k] != v {
			return false
		}
	}
	return true
}

// Verify checks that lock pins every plugin of specs as declared, for
// this platform and this Assay release, without changing anything. Its
// errors say which command fixes them. The executables' checksums are
// checked when they start (Open).
func Verify(lock *Lock, lockPath string, specs []Spec) error {
	var errs []error
	for _, s := range specs {
		lp, ok := lock.Plugin(s.Name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("plugin %q is not in %s: run `assay init SPEC` to add it", s.Name, lockPath))
		case lp.Kind != s.Kind || lp.Source != s.Source || lp.Version != s.Version:
			errs = append(errs, &ConflictError{Plugin: s.Name, Locked: lp, Spec: s, Path: lockPath})
		default:
			if _, builtin := lp.Builtin(); builtin {
				if lp.AssayVersion != version.Release {
					errs = append(errs, &ReleaseError{Plugin: s.Name, Locked: lp.AssayVersion, Actual: version.Release, Path: lockPath})
				}
			} else if _, ok := lp.Checksums[Platform]; !ok {
				errs = append(errs, fmt.Errorf("plugin %q has no %s checksum in %s (it was locked on %s): run `assay init SPEC` here to add it", s.Name, Platform, lockPath, platforms(lp)))
			}
		}
	}
	return errors.Join(errs...)
}

func platforms(lp LockedPlugin) string {
	var ps []string
	for p := range lp.Checksums {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return strings.Join(ps, ", ")
}

// existingLock reads the lock Init merges into: an empty one when there is
// no file (or when the whole lock is being upgraded and the file is not a
// readable lock).
func existingLock(path string, upgradeAll bool) (*Lock, error) {
	b, err := readLockFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Lock{}, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := parseLock(b, path)
	if err != nil {
		if upgradeAll {
			return &Lock{}, nil
		}
		return nil, err
	}
	return l, nil
}

func checkSpecs(specs []Spec, upgrade []string) error {
	var errs []error
	seen := map[string]bool{}
	builtins := builtinNames()
	for i, s := range specs {
		switch {
		case s.Name == "":
			errs = append(errs, fmt.Errorf("plugin #%d has no name", i+1))
		case seen[s.Name]:
			errs = append(errs, fmt.Errorf("plugin %q is declared twice", s.Name))
		}
		seen[s.Name] = true
		switch s.Kind {
		case plugins.KindTrainer, plugins.KindLLM, plugins.KindBenchmark:
		default:
			errs = append(errs, fmt.Errorf("plugin %q: unknown kind %q (want %s, %s or %s)",
				s.Name, s.Kind, plugins.KindTrainer, plugins.KindLLM, plugins.KindBenchmark))
		}
		if s.Source == "" {
			errs = append(errs, fmt.Errorf("plugin %q has no source: write \"builtin:NAME\" or a path to an executable", s.Name))
		} else if name, ok := strings.CutPrefix(s.Source, BuiltinPrefix); ok {
			if !builtinName.MatchString(name) || !slices.Contains(builtins, name) {
				errs = append(errs, fmt.Errorf("plugin %q: no built-in plugin %q (built-ins: %s)", s.Name, name, strings.Join(builtins, ", ")))
			}
		}
	}
	for _, n := range upgrade {
		if !seen[n] {
			var names []string
			for _, s := range specs {
				names = append(names, s.Name)
			}
			errs = append(errs, fmt.Errorf("cannot upgrade plugin %q: the spec declares no such plugin (it declares: %s)", n, strings.Join(names, ", ")))
		}
	}
	return errors.Join(errs...)
}

// resolveExecutable checks that source names an executable regular file.
func resolveExecutable(specDir, source string) (string, error) {
	p := source
	if !filepath.IsAbs(p) {
		p = filepath.Join(specDir, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("no plugin executable at %s", p)
		}
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not executable (chmod +x it)", p)
	}
	return p, nil
}
