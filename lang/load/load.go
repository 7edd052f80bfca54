package load

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/assay-lang/assay/lang/cue"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// Options are the command-line inputs every front end understands.
type Options struct {
	// Vars are "name=value" assignments from -var, applied after VarFiles.
	Vars []string
	// VarFiles are paths from -var-file, applied in order.
	VarFiles []string
	// Overlay maps a spec file's path to content that replaces the file on
	// disk: an editor's unsaved buffers, for the spec and the bases it
	// extends. A path in the overlay need not exist on disk. Paths are
	// compared absolute and cleaned. CUE directories are read from disk.
	Overlay map[string][]byte
	// Fetch, when set, is called with the path of each base spec before it
	// is read, so a caller that puts files on disk on demand can provide
	// it: assay diff --git extracts a base as committed at a revision.
	// An error is reported at the extends attribute.
	Fetch func(path string) error
}

// Sources maps a file name to its content, for diagnostic snippets
// (diag.Diagnostics.Annotate).
type Sources map[string][]byte

// Diagnostic codes of this package.
const (
	codeFileRead     = "E_FILE_READ"
	codeFormat       = "E_SPEC_FORMAT"
	codeExtends      = "E_EXTENDS"
	codeExtendsCycle = "E_EXTENDS_CYCLE"
	codeVarUnknown   = "E_VAR_UNKNOWN"
	codeVarType      = "E_VAR_TYPE"
	codeVarRequired  = "E_VAR_REQUIRED"
)

// Code is a diagnostic code of this package and what it means, for the
// language reference.
type Code struct{ Code, Meaning string }

// Codes lists the codes of this package: the spec language and `extends`
// resolution.
var Codes = []Code{
	{codeFormat, "the spec's language cannot be told from its file name: name specs *.hcl, *.cue, *.json, *.yaml or *.yml"},
	{codeExtends, "the base spec that extends names cannot be read, is not a regular file or a CUE package directory, is not a spec, or extends is not a path to a .hcl or .cue spec"},
	{codeExtendsCycle, "specs extend each other in a cycle"},
	{codeSuite, "an environment's task-suite manifest (suite) cannot be read, is not a valid manifest (docs/task-suites.md), or lists a task the spec writes too or whose metric direction differs from the environment's"},
	{codePromptFile, "a role's prompt file cannot be read: it is missing, not a regular file, or over 256 KiB (or its criteria_dir cannot be read or holds more than 256 criteria files)"},
	{codeCriticEvalData, "a critic_eval block's pairs file (data) exists but cannot be read (not a regular file, over 64 MiB), is not a pairs file (docs/pairs.md), or holds fewer pairs of its split than its limit"},
	{codeCriticPairs, "a critic_training block's pairs file exists but cannot be read, is not a pairs file (docs/pairs.md), or holds fewer pairs of its split labelled in its critic's space than it trains on, or a GRPO pool with no pair of a class its grpo.balance draws"},
	{codePairsMissing, "warning: a critic_eval's or critic_training's pairs file does not exist yet: the phase reads it when it starts and refuses it unless it exists by then"},
}

// Load reads the spec at path with the front end its extension selects and
// returns it with the sources it read. A spec with `extends` is merged over
// its base (spec.Merge), which is loaded the same way, recursively and with
// the same variables; the result stands alone, lists every file in Files,
// and the sources include the base files. A -var or -var-file entry must be
// declared by some file of the chain. As with the front ends, the spec may
// be a best-effort partial result when there are errors.
func Load(path string, opts Options) (*spec.Spec, Sources, diag.Diagnostics) {
	r := &resolver{opts: opts, src: Sources{}, declared: map[string]bool{}}
	s, ds := r.load(path, nil, diag.Range{}, nil)
	if s != nil {
		// After the merge: a suite joins the tasks of the merged environment.
		ds = append(ds, expandSuites(s, r.src)...)
	}
	ds = append(ds, r.readPrompts(s)...)
	ds = append(ds, r.checkPairFiles(s)...)
	ds = append(ds, r.readCriteriaDirs(s)...)
	ds = append(ds, r.unknownVars()...)
	ds = ds.Dedup()
	ds.Sort()
	return s, r.src, ds
}

// resolver loads one chain of specs joined by extends.
type resolver struct {
	opts Options
	src  Sources
	// declared is every variable name declared in a file of the chain.
	declared map[string]bool
	mu       sync.Mutex // guards unknown: front ends may call back from another goroutine
	unknown  []unknownVar
}

type unknownVar struct {
	name string
	at   diag.Range
}

// load loads path and, when it extends another spec, the base under it.
// chain holds the files that extend path, outermost first, for cycles; from
// is the extends attribute that named path (invalid for the spec the user
// gave); inherited are the variables the files of chain declare, for the
// front end to apply (see inheritVars).
func (r *resolver) load(path string, chain []string, from diag.Range, inherited []*spec.Variable) (*spec.Spec, diag.Diagnostics) {
	s, ds := r.loadFile(path, from, inherited)
	if s == nil {
		return nil, ds
	}
	for _, v := range s.Variables {
		r.declared[v.Name] = true
	}
	if !s.Extends.Set {
		return s, ds
	}
	at := s.Extends.Range
	if strings.TrimSpace(s.Extends.V) == "" {
		return s, append(ds, diag.Errorf(codeExtends, at, "extends is empty").
			WithDetail("Write the path of the base spec relative to this file, e.g. extends = \"lm2lm.hcl\", or remove extends."))
	}
	base := s.Extends.V
	if !filepath.IsAbs(base) {
		dir := filepath.Dir(path)
		if at.Filename != "" {
			dir = filepath.Dir(at.Filename)
		} else if info, err := os.Stat(path); err == nil && info.IsDir() {
			dir = path
		}
		base = filepath.Join(dir, base)
	}
	chain = append(chain[:len(chain):len(chain)], path)
	for i, c := range chain {
		if key(c) == key(base) {
			loop := append(append([]string(nil), chain[i:]...), base)
			return s, append(ds, diag.Errorf(codeExtendsCycle, at, "specs extend each other in a cycle: %s", strings.Join(loop, " -> ")).
				WithDetail("A spec cannot build on itself, directly or through others; remove extends from one of them."))
		}
	}
	if r.opts.Fetch != nil {
		if err := r.opts.Fetch(base); err != nil {
			return s, append(ds, diag.Errorf(codeExtends, at, "cannot read base spec %s: %v", s.Extends.V, err).
				WithDetail("extends is a path relative to the file that writes it; fix the path, or remove extends to make the spec stand alone."))
		}
	}
	b, bds := r.load(base, chain, at, inheritVars(inherited, s.Variables))
	if b != nil {
		if fill := baseDefaults(s.Variables, b.Variables, ds); len(fill) > 0 {
			// A variable declared here without a default takes the base's:
			// the file is evaluated again with it.
			if s2, ds2 := r.loadFile(path, from, append(append([]*spec.Variable(nil), inherited...), fill...)); s2 != nil {
				s, ds = s2, ds2
			}
		}
	}
	ds = append(ds, r.baseDiags(base, at, bds)...)
	if b == nil {
		return s, ds
	}
	ds = append(ds, retyped(s.Variables, b.Variables)...)
	return spec.Merge(b, s), ds
}

// loadFile loads one spec with its front end. A base that cannot be read
// is reported at the extends attribute that names it.
func (r *resolver) loadFile(path string, from diag.Range, inherited []*spec.Variable) (*spec.Spec, diag.Diagnostics) {
	if src, ok := r.overlay(path); ok {
		return r.loadOverlay(path, src, from, inherited)
	}
	info, err := os.Stat(path)
	if err != nil {
		if from.Filename != "" {
			return nil, diag.Diagnostics{diag.Errorf(codeExtends, from, "cannot read base spec %s: %v", path, unwrapPathError(err)).
				WithDetail("extends is a path relative to the file that writes it; fix the path, or remove extends to make the spec stand alone.")}
		}
		return nil, diag.Diagnostics{diag.Errorf(codeFileRead, diag.Range{Filename: path}, "cannot read spec: %v", unwrapPathError(err)).
			WithDetail("check the path; specs are .hcl files, .cue files or directories of .cue files")}
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		// A named pipe would block the read, a device never end it.
		what := budget.Kind(info.Mode())
		if from.Filename != "" {
			return nil, diag.Diagnostics{diag.Errorf(codeExtends, from, "base spec %s is %s, not a regular file", path, what).
				WithDetail("extends names a .hcl or .cue spec file, or a directory of .cue files.")}
		}
		return nil, diag.Diagnostics{diag.Errorf(codeFileRead, fileStart(path), "cannot read spec: %s is %s, not a regular file", path, what).
			WithDetail("specs are .hcl files, .cue files or directories of .cue files")}
	}
	onUnknown := func(name string, at diag.Range) {
		r.mu.Lock()
		r.unknown = append(r.unknown, unknownVar{name, at})
		r.mu.Unlock()
	}
	switch {
	case info.IsDir() || isCUEFamily(path):
		// JSON and YAML are data CUE reads: one front end for the three.
		return r.loadCUE(path, onUnknown, inherited)
	case strings.EqualFold(filepath.Ext(path), ".hcl"):
		return r.loadHCL(path, onUnknown, inherited)
	}
	if from.Filename != "" {
		return nil, diag.Diagnostics{diag.Errorf(codeExtends, from, "cannot tell the spec language of base spec %s from its name", path).
			WithDetail("extends names an HCL spec (*.hcl), a CUE spec (*.cue), a JSON or YAML spec (*.json, *.yaml, *.yml) or a directory of .cue files.")}
	}
	return nil, diag.Diagnostics{diag.Errorf(codeFormat, diag.Range{Filename: path}, "cannot tell the spec language of %q from its name", path).
		WithDetail("name HCL specs *.hcl, CUE specs *.cue, JSON specs *.json and YAML specs *.yaml or *.yml (or pass a directory of .cue files)")}
}

// isCUEFamily reports whether the CUE front end reads path: CUE, and JSON
// and YAML, which CUE reads as data.
func isCUEFamily(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cue", ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// overlay returns the editor's content of path, if it has any.
func (r *resolver) overlay(path string) ([]byte, bool) {
	if len(r.opts.Overlay) == 0 {
		return nil, false
	}
	if src, ok := r.opts.Overlay[path]; ok {
		return src, true
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false
	}
	src, ok := r.opts.Overlay[filepath.Clean(abs)]
	return src, ok
}

// loadOverlay loads a spec file from the overlay, with the front end its
// extension selects, as loadFile does from disk.
func (r *resolver) loadOverlay(path string, src []byte, from diag.Range, inherited []*spec.Variable) (*spec.Spec, diag.Diagnostics) {
	onUnknown := func(name string, at diag.Range) {
		r.mu.Lock()
		r.unknown = append(r.unknown, unknownVar{name, at})
		r.mu.Unlock()
	}
	r.src[path] = src
	r.readVarFiles()
	switch {
	case strings.EqualFold(filepath.Ext(path), ".cue"):
		return cue.Load([]cue.Source{{Name: path, Src: src}}, cue.Options{Vars: r.opts.Vars, VarFiles: r.opts.VarFiles, UnknownVar: onUnknown, Inherited: inherited})
	case strings.EqualFold(filepath.Ext(path), ".hcl"):
		return hcl.Load(path, src, hcl.Options{Vars: r.opts.Vars, VarFiles: r.opts.VarFiles, UnknownVar: onUnknown, Inherited: inherited})
	}
	delete(r.src, path)
	if from.Filename != "" {
		return nil, diag.Diagnostics{diag.Errorf(codeExtends, from, "cannot tell the spec language of base spec %s from its name", path).
			WithDetail("extends names an HCL spec (*.hcl), a CUE spec (*.cue) or a directory of .cue files.")}
	}
	return nil, diag.Diagnostics{diag.Errorf(codeFormat, diag.Range{Filename: path}, "cannot tell the spec language of %q from its name", path).
		WithDetail("name HCL specs *.hcl and CUE specs *.cue (or pass a directory of .cue files)")}
}

func (r *resolver) loadHCL(path string, onUnknown func(string, diag.Range), inherited []*spec.Variable) (*spec.Spec, diag.Diagnostics) {
	r.readSource(path)
	r.readVarFiles()
	return hcl.LoadFile(path, hcl.Options{Vars: r.opts.Vars, VarFiles: r.opts.VarFiles, UnknownVar: onUnknown, Inherited: inherited})
}

func (r *resolver) loadCUE(path string, onUnknown func(string, diag.Range), inherited []*spec.Variable) (*spec.Spec, diag.Diagnostics) {
	s, diags := cue.LoadFile(path, cue.Options{Vars: r.opts.Vars, VarFiles: r.opts.VarFiles, UnknownVar: onUnknown, Inherited: inherited})
	if s != nil {
		for _, f := range s.Files {
			r.readSource(f)
		}
	} else {
		r.readSource(path)
	}
	r.readVarFiles()
	return s, diags
}

func (r *resolver) readVarFiles() {
	for _, f := range r.opts.VarFiles {
		if _, ok := r.src[f]; !ok {
			r.readSource(f)
		}
	}
}

// readSource keeps a file's content for snippets. It reads as the front
// ends do, bounded and regular files only; what they refuse is not kept.
func (r *resolver) readSource(path string) {
	if b, err := budget.ReadFile(path, budget.DefaultMaxSourceBytes); err == nil {
		r.src[path] = b
	}
}

func fileStart(path string) diag.Range {
	return diag.Range{Filename: path, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
}

// unknownVars reports the -var and -var-file names that no file of the
// chain declares, once each.
func (r *resolver) unknownVars() diag.Diagnostics {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.declared))
	for n := range r.declared {
		names = append(names, n)
	}
	sort.Strings(names)
	var ds diag.Diagnostics
	seen := map[string]bool{}
	for _, u := range r.unknown {
		k := fmt.Sprintf("%s\x00%s:%d:%d", u.name, u.at.Filename, u.at.Start.Line, u.at.Start.Column)
		if r.declared[u.name] || seen[k] {
			continue
		}
		seen[k] = true
		d := diag.Errorf(codeVarUnknown, u.at, "no variable %q is declared", u.name)
		if u.at.Filename == "-var" {
			d.Summary = "-var " + u.name + ": " + d.Summary
		}
		hint := ""
		if s := diag.DidYouMean(u.name, names); s != "" {
			hint = s + " "
		}
		if len(names) == 0 {
			d.WithDetail("%sThe spec declares no variables; declare %s in a variable block first.", hint, u.name)
		} else {
			d.WithDetail("%sThe declared variables (of the spec and any spec it extends) are: %s.", hint, strings.Join(names, ", "))
		}
		ds = append(ds, d)
	}
	return ds
}

// key identifies a file for cycle detection, however its path is written.
func key(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	if e, err := filepath.EvalSymlinks(path); err == nil {
		path = e
	}
	return filepath.Clean(path)
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
