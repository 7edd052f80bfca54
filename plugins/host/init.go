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
	// Rebuild deletes cached built-in binaries before building them.
	Rebuild bool
	// BuildLog receives the go build commands as they run (nil: nowhere).
	BuildLog io.Writer
}

// LockPathFor returns the lock file path for the spec file at specPath.
func LockPathFor(specPath string) string {
	return filepath.Join(filepath.Dir(specPath), LockFileName)
}

var builtinName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Init resolves every plugin, builds (or brings up to date) built-in
// binaries in the cache, and writes the lock to lockPath. It reports every bad spec at once.
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

	if err := checkSpecs(specs); err != nil {
		return nil, err
	}

	lock := &Lock{FormatVersion: LockFormatVersion, dir: lockDir}
	var errs []error
	var root string
	built := map[string]string{} // one binary may serve several plugins
	for _, s := range specs {
		var bin string
		if name, ok := strings.CutPrefix(s.Source, BuiltinPrefix); ok {
			if root == "" {
				if root, err = findModuleRoot(opts.ModuleRoot, opts.SpecDir); err != nil {
					return nil, fmt.Errorf("plugin %q (%s): %w", s.Name, s.Source, err)
				}
			}
			if bin, ok = built[name]; !ok {
				if bin, err = buildBuiltin(ctx, root, name, opts); err == nil {
					built[name] = bin
				}
			}
		} else {
			bin, err = resolveExecutable(opts.SpecDir, s.Source)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %q (%s): %w", s.Name, s.Source, err))
			continue
		}
		sum, err := FileSHA256(bin)
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %q: %w", s.Name, err))
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
	if err := lock.Write(lockPath); err != nil {
		return nil, fmt.Errorf("writing the plugin lock: %w", err)
	}
	return lock, nil
}

func checkSpecs(specs []Spec) error {
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

// buildBuiltin builds plugins/builtin/NAME into the cache, unless a cached
// binary exists and no rebuild was asked for.
func buildBuiltin(ctx context.Context, root, name string, opts Options) (string, error) {
	src := filepath.Join(root, "plugins", "builtin", name)
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("no built-in plugin %q in %s (built-ins: %s)", name, root, strings.Join(listBuiltins(root), ", "))
	}
	out := filepath.Join(opts.CacheDir, name)
	cached := false
	if fi, err := os.Stat(out); err == nil && fi.Mode().IsRegular() {
		cached = true
	}
	if cached && opts.Rebuild {
		if err := os.Remove(out); err != nil {
			return "", err
		}
		cached = false
	}
	if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
		return "", err
	}
	// go build leaves an up-to-date binary alone (a fraction of a second),
	// so building every time keeps the cache from going stale after the
	// source changed. -trimpath keeps file system paths out of the binary,
	// so the same source and toolchain give the same checksum anywhere.
	args := []string{"build", "-trimpath", "-o", out, "./plugins/builtin/" + name}
	if opts.BuildLog != nil {
		fmt.Fprintf(opts.BuildLog, "(cd %s && %s %s)\n", root, opts.GoCmd, strings.Join(args, " "))
	}
	cmd := exec.CommandContext(ctx, opts.GoCmd, args...)
	cmd.Dir = root
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if cached && errors.Is(err, exec.ErrNotFound) {
			// No Go toolchain here: the cached binary is the best we have.
			return out, nil
		}
		return "", fmt.Errorf("building built-in plugin %q failed (%v):\n%s", name, err, strings.TrimSpace(buf.String()))
	}
	return out, nil
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
