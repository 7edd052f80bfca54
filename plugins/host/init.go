package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"assay/plugins"
)

// BuiltinPrefix marks a plugin source built from this module's
// plugins/builtin directory.
const BuiltinPrefix = "builtin:"

// ModuleName is the module path Init looks for when it searches for the
// Assay source tree to build built-in plugins from.
const ModuleName = "assay"

// RootEnv names the environment variable that overrides the search for the
// Assay module root.
const RootEnv = "ASSAY_ROOT"

// Options tune Init.
type Options struct {
	// SpecDir is the directory relative plugin paths resolve against and
	// where the search for the module root starts. Default: the lock
	// file's directory.
	SpecDir string
	// ModuleRoot is the Assay module root to build built-ins in. Default:
	// $ASSAY_ROOT, else the first directory with an `assay` go.mod found
	// walking up from SpecDir, then from the running executable.
	ModuleRoot string
	// CacheDir holds built-in binaries. Default: .assay/plugins next to the
	// lock file.
	CacheDir string
	// GoCmd is the go command (default "go").
	GoCmd string
	// Rebuild builds built-in binaries with -a, ignoring Go's build cache.
	// (Every Init builds afresh into a temporary file either way.)
	Rebuild bool
	// Upgrade names plugins whose existing lock entries may change (new
	// checksum, kind, source or version); UpgradeAll allows it for every
	// plugin of the spec. Without them Init refuses any change to an entry.
	Upgrade    []string
	UpgradeAll bool
	// BuildLog receives the go build commands as they run (nil: nowhere).
	BuildLog io.Writer
}

// LockPathFor returns the lock file path for the spec file at specPath.
func LockPathFor(specPath string) string {
	return filepath.Join(filepath.Dir(specPath), LockFileName)
}

var builtinName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// ConflictError reports a plugin whose spec declaration differs from the
// entry the lock already holds for that name (another spec in the same
// directory, or an earlier version of this one, locked it).
type ConflictError struct {
	Plugin string
	Locked LockedPlugin
	Spec   Spec
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("plugin %q: the spec declares kind %s, source %s, version %q, but %s already locks it as kind %s, source %s, version %q "+
		"(another spec in this directory, or an earlier version of this one); rename the plugin in one spec, or run `assay init --upgrade=%s SPEC` to replace the entry",
		e.Plugin, e.Spec.Kind, e.Spec.Source, e.Spec.Version, LockFileName, e.Locked.Kind, e.Locked.Source, e.Locked.Version, e.Plugin)
}

// Init resolves every plugin, builds built-in binaries, and writes the lock
// to lockPath. It reports every bad spec at once.
//
// The lock file is shared by every spec in its directory: entries of
// plugins the specs do not declare are kept as they are. An entry that
// exists is never changed without an upgrade (Options.Upgrade,
// Options.UpgradeAll): a binary whose checksum differs from it is refused
// with a *ChecksumError, and a declaration with another kind, source or
// version with a *ConflictError. Nothing is written, and no cached binary
// is replaced, unless every plugin resolves.
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
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(lockDir, ".assay", "plugins")
	}
	if opts.GoCmd == "" {
		opts.GoCmd = "go"
	}

	if err := checkSpecs(specs, opts.Upgrade); err != nil {
		return nil, err
	}
	upgrade := map[string]bool{}
	for _, n := range opts.Upgrade {
		upgrade[n] = true
	}
	old, err := existingLock(lockPath, opts.UpgradeAll)
	if err != nil {
		return nil, err
	}

	declared := map[string]bool{}
	for _, s := range specs {
		declared[s.Name] = true
	}
	lock := &Lock{FormatVersion: LockFormatVersion, dir: lockDir}
	for _, lp := range old.Plugins {
		if !declared[lp.Name] {
			lock.Plugins = append(lock.Plugins, lp) // another spec's
		}
	}

	var errs []error
	var root string
	builds := map[string]*build{} // one build may serve several plugins
	defer func() {
		for _, b := range builds {
			b.discard()
		}
	}()
	for _, s := range specs {
		prev, had := old.Plugin(s.Name)
		if opts.UpgradeAll || upgrade[s.Name] {
			had = false
		}
		if had && (prev.Kind != s.Kind || prev.Source != s.Source || prev.Version != s.Version) {
			errs = append(errs, &ConflictError{Plugin: s.Name, Locked: prev, Spec: s})
			continue
		}
		var bin, sum string
		if name, ok := strings.CutPrefix(s.Source, BuiltinPrefix); ok {
			if root == "" {
				if root, err = findModuleRoot(opts.ModuleRoot, opts.SpecDir); err != nil {
					return nil, fmt.Errorf("plugin %q (%s): %w", s.Name, s.Source, err)
				}
			}
			b, ok := builds[name]
			if !ok {
				if b, err = buildBuiltin(ctx, root, name, opts); err != nil {
					errs = append(errs, fmt.Errorf("plugin %q (%s): %w", s.Name, s.Source, err))
					continue
				}
				builds[name] = b
			}
			bin, sum = b.out, b.sum
		} else {
			if bin, err = resolveExecutable(opts.SpecDir, s.Source); err == nil {
				sum, err = FileSHA256(bin)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("plugin %q (%s): %w", s.Name, s.Source, err))
				continue
			}
		}
		if had && sum != prev.SHA256 {
			var ce error = &ChecksumError{Plugin: s.Name, Path: bin, Locked: prev.SHA256, Actual: sum}
			if strings.HasPrefix(s.Source, BuiltinPrefix) {
				ce = fmt.Errorf("%w (checked on a fresh build of %s: its source or the Go toolchain changed since it was locked)", ce, s.Source)
			}
			errs = append(errs, ce)
			continue
		}
		lock.Plugins = append(lock.Plugins, LockedPlugin{
			Name:    s.Name,
			Kind:    s.Kind,
			Source:  s.Source,
			Version: s.Version,
			Path:    relativeTo(lockDir, bin),
			SHA256:  sum,
		})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, b := range builds {
		if err := b.install(); err != nil {
			return nil, err
		}
	}
	if err := lock.Write(lockPath); err != nil {
		return nil, fmt.Errorf("writing the plugin lock: %w", err)
	}
	return lock, nil
}

// existingLock reads the lock Init merges into: an empty one when there is
// no file (or when the whole lock is being upgraded and the file is not a
// readable lock).
func existingLock(path string, upgradeAll bool) (*Lock, error) {
	b, err := os.ReadFile(path)
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
		return nil, fmt.Errorf("%w; it may hold other specs' plugins, so it is not rewritten: fix or delete it, or run `assay init --upgrade SPEC` to rewrite it with SPEC's plugins only", err)
	}
	return l, nil
}

func checkSpecs(specs []Spec, upgrade []string) error {
	var errs []error
	seen := map[string]bool{}
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
		} else if name, ok := strings.CutPrefix(s.Source, BuiltinPrefix); ok && !builtinName.MatchString(name) {
			errs = append(errs, fmt.Errorf("plugin %q: %q is not a built-in plugin name (lower-case letters, digits, - and _)", s.Name, name))
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

// build is a built-in binary built into a private temporary directory;
// install moves it into the cache atomically.
type build struct {
	tmpDir string
	tmp    string // the new binary, inside tmpDir
	out    string // its place in the cache
	sum    string
	cached bool // tmp is empty: out is the cached binary, kept as is
}

// install renames the new binary over the cached one (atomic on one file
// system, and safe while an older copy runs).
func (b *build) install() error {
	if b.cached || b.tmp == "" {
		return nil
	}
	if err := os.Rename(b.tmp, b.out); err != nil {
		return fmt.Errorf("installing the built-in binary %s: %w", b.out, err)
	}
	b.tmp = ""
	return nil
}

// discard removes what install did not move.
func (b *build) discard() {
	if b.tmpDir != "" {
		os.RemoveAll(b.tmpDir)
		b.tmpDir = ""
	}
}

// buildBuiltin builds plugins/builtin/NAME into a fresh temporary file next
// to the cache and hashes it. Building to a new path matters: `go build -o`
// onto an existing binary whose build ID is current leaves it alone, even
// when its bytes were changed since. Without a Go toolchain, a cached
// binary is used as it is (and hashed, so a changed one is still caught).
func buildBuiltin(ctx context.Context, root, name string, opts Options) (*build, error) {
	src := filepath.Join(root, "plugins", "builtin", name)
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("no built-in plugin %q in %s (built-ins: %s)", name, root, strings.Join(listBuiltins(root), ", "))
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return nil, err
	}
	b := &build{out: filepath.Join(opts.CacheDir, name)}
	tmpDir, err := os.MkdirTemp(opts.CacheDir, ".build-"+name+"-")
	if err != nil {
		return nil, err
	}
	b.tmpDir, b.tmp = tmpDir, filepath.Join(tmpDir, name)
	// -trimpath keeps file system paths out of the binary, so the same
	// source and toolchain give the same checksum anywhere; -a (Rebuild)
	// ignores Go's build cache as well.
	args := []string{"build", "-trimpath"}
	if opts.Rebuild {
		args = append(args, "-a")
	}
	args = append(args, "-o", b.tmp, "./plugins/builtin/"+name)
	if opts.BuildLog != nil {
		fmt.Fprintf(opts.BuildLog, "(cd %s && %s %s)\n", root, opts.GoCmd, strings.Join(args, " "))
	}
	cmd := exec.CommandContext(ctx, opts.GoCmd, args...)
	cmd.Dir = root
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		b.discard()
		if fi, serr := os.Stat(b.out); serr == nil && fi.Mode().IsRegular() && errors.Is(err, exec.ErrNotFound) {
			// No Go toolchain here: the cached binary is the best we have.
			b.tmp, b.cached = "", true
			if b.sum, err = FileSHA256(b.out); err != nil {
				return nil, err
			}
			return b, nil
		}
		return nil, fmt.Errorf("building built-in plugin %q failed (%v):\n%s", name, err, strings.TrimSpace(buf.String()))
	}
	if b.sum, err = FileSHA256(b.tmp); err != nil {
		b.discard()
		return nil, err
	}
	return b, nil
}

func listBuiltins(root string) []string {
	ents, _ := os.ReadDir(filepath.Join(root, "plugins", "builtin"))
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}

// findModuleRoot finds the Assay source tree that built-ins are built from.
func findModuleRoot(explicit, specDir string) (string, error) {
	if explicit != "" {
		if !isAssayModule(explicit) {
			return "", fmt.Errorf("%s has no go.mod for module %q", explicit, ModuleName)
		}
		return filepath.Abs(explicit)
	}
	if env := os.Getenv(RootEnv); env != "" {
		if !isAssayModule(env) {
			return "", fmt.Errorf("$%s=%s has no go.mod for module %q", RootEnv, env, ModuleName)
		}
		return filepath.Abs(env)
	}
	starts := []string{specDir}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			starts = append(starts, filepath.Dir(exe))
		}
	}
	for _, start := range starts {
		for dir := start; ; {
			if isAssayModule(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find the Assay source tree to build built-in plugins from (looked above %s and the assay executable): set $%s to the directory holding Assay's go.mod", specDir, RootEnv)
}

func isAssayModule(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if mod, ok := strings.CutPrefix(line, "module"); ok {
			mod = strings.Trim(strings.TrimSpace(mod), `"`)
			return mod == ModuleName
		}
	}
	return false
}

func relativeTo(dir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}
