package compiler

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// MaxRepairs bounds a source's repairs: each is one more priced builder
// call per candidate. A source's defaults are in defaults.go
// (sourceRevision, sourceRepairs).
const MaxRepairs = 10

// mergeSource is the source a task uses: the environment's, with each
// field the task's own source block sets over it; nil when neither has
// one. A suite task's scaffold is the base of both: a source block turns
// the suite to source mode, and each field it sets overrides the
// manifest's (scaffoldSource).
func mergeSource(e *spec.Environment, t *spec.Task) *spec.Source {
	var ts *spec.Source
	if t != nil {
		ts = t.Source
	}
	if t != nil && t.Suite != nil && (e.Source != nil || ts != nil) {
		return overSource(overSource(scaffoldSource(t.Suite), e.Source), ts)
	}
	switch {
	case e.Source == nil && ts == nil:
		return nil
	case ts == nil:
		return e.Source
	case e.Source == nil:
		return ts
	}
	return overSource(e.Source, ts)
}

// overSource is base with each field ts sets over it, at ts's range; base
// when ts is nil.
func overSource(base, ts *spec.Source) *spec.Source {
	if ts == nil {
		return base
	}
	m := *base
	over := func(set bool, apply func()) {
		if set {
			apply()
		}
	}
	over(ts.Repository.Set, func() { m.Repository = ts.Repository })
	over(ts.Revision.Set, func() { m.Revision = ts.Revision })
	over(ts.Editable.Set, func() { m.Editable = ts.Editable })
	over(ts.Build.Set, func() { m.Build = ts.Build })
	over(ts.Repairs.Set, func() { m.Repairs = ts.Repairs })
	over(ts.KeepWorktrees.Set, func() { m.KeepWorktrees = ts.KeepWorktrees })
	over(ts.Import != nil, func() { m.Import = ts.Import })
	m.Range = ts.Range
	return &m
}

// scaffoldSource is a suite task's scaffold as a source: its repository
// (absolute, so repoPath keeps it), revision and editable paths, at the
// task's entry in the manifest.
func scaffoldSource(st *spec.SuiteTask) *spec.Source {
	at := st.Manifest
	dir := st.Dir
	if abs, err := filepath.Abs(dir); err == nil && dir != "" {
		dir = abs
	}
	// An unnamed checkout ("") and a placeholder edit surface are set but
	// empty: nothing is checked of them until a run, which refuses them.
	return &spec.Source{
		Repository: spec.Val[string]{V: dir, Set: true, Range: at},
		Revision:   spec.Val[string]{V: st.Revision, Set: st.Revision != "", Range: at},
		Editable:   spec.Val[[]string]{V: st.Editable, Set: len(st.Editable) > 0 || st.Has("scaffold.editable"), Range: at},
		Range:      at,
	}
}

// repoPath resolves a repository path: relative to the file that wrote
// it (a --set value: the working directory), absolute in the plan so a
// run finds it wherever it is started.
func repoPath(v spec.Val[string]) string {
	p := v.V
	if !filepath.IsAbs(p) {
		if f := v.Range.Filename; f != "" && f != SetSource {
			p = filepath.Join(filepath.Dir(f), p)
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.Clean(p)
}

// sources checks every source block alone, then the source each task ends
// with: a repository, editable paths, and a repository that exists at its
// revision (through Options.CheckRepository, once per repository and
// revision of the compilation). Tasks given by count share their
// environment's source, which is checked once for them all.
func (k *checker) sources() {
	for _, e := range k.s.Environments {
		k.sourceBlock(e.Source, fmt.Sprintf("environment %q: source", e.Name))
		for _, t := range e.TaskList {
			k.sourceBlock(t.Source, fmt.Sprintf("task %q: source", t.Name))
			if src := mergeSource(e, t); src != nil {
				k.mergedSource(src, t)
			}
		}
		if len(e.TaskList) == 0 && e.Source != nil {
			k.mergedSource(e.Source, &spec.Task{Name: "of environment " + e.Name, NameRange: e.NameRange})
		}
	}
}

// sourceBlock checks the fields of one source block as written.
func (k *checker) sourceBlock(src *spec.Source, what string) {
	if src == nil {
		return
	}
	if v := src.Repairs; v.Set && (v.V < 0 || v.V > MaxRepairs) {
		k.add(diag.Errorf(CodeRange, v.Range, "%s.repairs must be between 0 and %d, got %d", what, MaxRepairs, v.V).
			WithDetail("Each repair is one more builder call per candidate, and after a real run that failed one more real run, priced in the estimate."))
	}
	if v := src.Revision; v.Set && strings.TrimSpace(v.V) == "" {
		k.add(diag.Errorf(CodeSource, v.Range, "%s.revision is empty", what).WithDetail(`write a branch, tag or commit id, or leave it out for "HEAD"`))
	}
	if v := src.Repository; v.Set && strings.TrimSpace(v.V) == "" {
		k.add(diag.Errorf(CodeSource, v.Range, "%s.repository is empty", what).WithDetail("write the path of a git repository, relative to this file or absolute"))
	}
	for i, a := range src.Build.V {
		if a == "" {
			k.add(diag.Errorf(CodeSource, src.Build.Range, "%s.build[%d] is empty", what, i).
				WithDetail(`build is an argument list run without a shell, e.g. ["go", "build", "./..."]; every argument must be non-empty`))
		}
	}
	if v := src.Editable; v.Set && len(v.V) == 0 {
		k.add(diag.Errorf(CodeSource, v.Range, "%s.editable is empty: no patch could change anything", what).
			WithDetail(`list the paths a patch may change, e.g. editable = ["model/*.go"]`))
	}
	for _, g := range src.Editable.V {
		if why := badEditable(g); why != "" {
			k.add(diag.Errorf(CodeSource, src.Editable.Range, "%s.editable entry %q %s", what, g, why).
				WithDetail("editable paths are relative to the repository's top, with * and ** globs, e.g. \"train/*.py\""))
		}
	}
	if im := src.Import; im != nil {
		for _, g := range im.Exclude.V {
			if why := badEditable(g); why != "" {
				k.add(diag.Errorf(CodeSource, im.Exclude.Range, "%s.import.exclude entry %q %s", what, g, why).
					WithDetail("exclude paths are relative to the imported directory, with * and ** globs, e.g. \"*_test.go\" or \"data\""))
			}
		}
		if v := im.Overlay; v.Set && strings.TrimSpace(v.V) == "" {
			k.add(diag.Errorf(CodeSource, v.Range, "%s.import.overlay is empty", what).WithDetail("write the path of a directory, relative to this file, or leave overlay out"))
		}
	}
}

// badEditable says what is wrong with an editable glob, or "".
func badEditable(g string) string {
	switch {
	case g == "":
		return "is empty"
	case strings.HasPrefix(g, "/") || filepath.IsAbs(g):
		return "is absolute"
	case strings.Contains(g, "\\"):
		return "has a backslash; write paths with /"
	case strings.HasPrefix(g, ":"):
		return "uses pathspec magic, which editable does not take"
	}
	for _, part := range strings.Split(g, "/") {
		if part == ".." {
			return "leaves the repository (..)"
		}
	}
	if _, err := path.Match(strings.ReplaceAll(g, "**", "*"), ""); err != nil {
		return "is not a valid glob"
	}
	return ""
}

// mergedSource checks the source a task ends with.
func (k *checker) mergedSource(src *spec.Source, t *spec.Task) {
	at := k.at(src.Range, t.NameRange)
	what := fmt.Sprintf("task %q: source", t.Name)
	if !k.need(src.Repository.Set, at, what+".repository", `repository = "path/to/repo" (relative to this file)`) {
		return
	}
	k.need(src.Editable.Set, at, what+".editable", `editable = ["path/or/glob", ...]: the paths a patch may change`)
	if src.Import != nil {
		k.importedSource(src, what)
		return
	}
	check := k.c.opts.CheckRepository
	if check == nil || strings.TrimSpace(src.Repository.V) == "" {
		return
	}
	dir, rev := repoPath(src.Repository), sourceRevision.of(src.Revision)
	key := dir + "\x00" + rev
	if k.c.repos == nil {
		k.c.repos = map[string]error{}
	}
	err, seen := k.c.repos[key]
	if !seen {
		err = check(dir, rev)
		k.c.repos[key] = err
	}
	if err != nil {
		rng := src.Repository.Range
		if src.Revision.Set {
			rng = src.Revision.Range
		}
		k.add(diag.Errorf(CodeSourceRepo, rng, "%s: %v", what, err).
			WithDetail("repository must be a git repository (relative to this file, or absolute) in which revision names a commit"))
	}
}

// importedSource checks a source whose repository is a directory to
// import: it has no revision to name (its one commit is the import), and
// its files must be importable (Options.CheckImport, once per directory,
// exclusions and overlay of the compilation), as run imports them.
func (k *checker) importedSource(src *spec.Source, what string) {
	if src.Revision.Set {
		k.add(diag.Errorf(CodeConflict, src.Revision.Range, "%s.revision is set, but the source is imported: its seed program is the one commit of the import", what).
			WithDetail("leave revision out, or drop the import block and name a git repository's top directory"))
		return
	}
	check := k.c.opts.CheckImport
	if check == nil || strings.TrimSpace(src.Repository.V) == "" {
		return
	}
	dir, im := repoPath(src.Repository), lowerImport(src.Import)
	key := "import\x00" + dir + "\x00" + strings.Join(im.Exclude, "\x00") + "\x00" + im.Overlay
	if k.c.repos == nil {
		k.c.repos = map[string]error{}
	}
	err, seen := k.c.repos[key]
	if !seen {
		err = check(dir, im.Exclude, im.Overlay)
		k.c.repos[key] = err
	}
	switch {
	case err == nil:
	case strings.HasSuffix(src.Repository.Range.Filename, ".json"):
		// A suite task's scaffold: said at its entry in the manifest.
		k.add(diag.Errorf(CodeSourceImport, src.Repository.Range, "%s.import of %s: %v", what, dir, err).
			WithDetail("the task's scaffold.repository, under the environment's suite_root: put the task's directory there, or write where it is in the manifest"))
	default:
		k.add(diag.Errorf(CodeSourceImport, src.Import.Range, "%s.import of %s: %v", what, dir, err).
			WithDetail("an imported directory holds regular files, directories and symlinks that stay inside it, within the import's bounds; leave paths out with exclude"))
	}
}

// lowerImport is an import block as the plan holds it: its overlay an
// absolute path, read from the file that wrote it.
func lowerImport(im *spec.Import) *plan.Import {
	out := &plan.Import{Exclude: append([]string(nil), im.Exclude.V...)}
	if im.Overlay.Set {
		out.Overlay = repoPath(im.Overlay)
	}
	return out
}

// lowerSource is a task's resolved source, nil when it has none.
func lowerSource(s *spec.Spec, e *spec.Environment, t *spec.Task) *plan.Source {
	src := mergeSource(e, t)
	if src == nil {
		return nil
	}
	repo := ""
	if strings.TrimSpace(src.Repository.V) != "" {
		repo = repoPath(src.Repository)
	}
	out := &plan.Source{
		Repository:    repo,
		Revision:      sourceRevision.of(src.Revision),
		Editable:      append([]string(nil), src.Editable.V...),
		Build:         append([]string(nil), src.Build.V...),
		Repairs:       sourceRepairs.of(src.Repairs),
		KeepWorktrees: src.KeepWorktrees.V,
		At:            src.Range,
	}
	if src.Import != nil {
		out.Import = lowerImport(src.Import)
		out.Revision = ""
	}
	if len(out.Build) > 0 {
		out.BuildInherits, out.BuildEnv = buildEnv(s, e)
	}
	return out
}

// buildEnv is the environment of a source's build: the job environment of
// the environment's trainer. A build runs the candidate's code as its real
// runs do, so it gets what they get and nothing else of Assay's (an LLM
// plugin's API key): the base variables every job inherits
// (pluginconfig.JobBaseEnv) and, for a builtin:command trainer, the names
// in its pass_env (inherited) and the values in its env (set, sorted by
// name). checkPassEnv keeps an LLM key out of both.
func buildEnv(s *spec.Spec, e *spec.Environment) (inherit, set []string) {
	inherit = append([]string(nil), pluginconfig.JobBaseEnv...)
	for _, p := range s.Plugins {
		if p.Name != e.Trainer.Name || p.Source.V != "builtin:command" {
			continue
		}
		// Read as the command trainer reads its config.
		cfg := pluginconfig.Values(p.Config.V)
		for _, n := range cfg.Strings("pass_env") {
			if !slices.Contains(inherit, n) {
				inherit = append(inherit, n)
			}
		}
		env := cfg.ScalarMap("env")
		for _, k := range sortedKeys(env) {
			set = append(set, k+"="+env[k])
		}
	}
	return inherit, set
}

// repairs is the range of repairs a build of the variant may get: a task
// with a source gets its source's repairs, any other the loop's own
// (loopRepairs; 0 outside a loop).
func (lv *lowering) repairs(loopRepairs int) repairRange {
	var rr repairRange
	first := true
	note := func(n int) {
		if first {
			rr, first = repairRange{lo: n, hi: n}, false
		}
		rr.lo, rr.hi = min(rr.lo, n), max(rr.hi, n)
	}
	for _, e := range lv.s.Environments {
		if len(e.TaskList) == 0 {
			// Tasks by count share the environment's source.
			if e.Source != nil {
				note(sourceRepairs.of(e.Source.Repairs))
			} else {
				note(loopRepairs)
			}
			continue
		}
		for _, t := range e.TaskList {
			if src := mergeSource(e, t); src != nil {
				note(sourceRepairs.of(src.Repairs))
			} else {
				note(loopRepairs)
			}
		}
	}
	if first {
		return repairRange{lo: loopRepairs, hi: loopRepairs}
	}
	return rr
}

// repairRange is the fewest and most repairs one failed build gets.
type repairRange struct{ lo, hi int }
