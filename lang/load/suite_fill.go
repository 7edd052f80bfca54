package load

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// fillShape reports whether the value at path may be a placeholder.
func fillShape(path string) bool {
	shape := indexRE.ReplaceAllString(path, "[]")
	for _, ff := range fillFields {
		if shape == "tasks[]."+ff {
			return true
		}
	}
	return false
}

// blanked is the manifest with each placeholder object written over by
// null and spaces, so the decoder reads the field as absent and every
// offset stays where it was.
func (f *suiteFile) blanked() []byte {
	if len(f.fills) == 0 {
		return f.src
	}
	b := bytes.Clone(f.src)
	for _, fs := range f.fills {
		for i := fs.start; i < fs.end; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
		copy(b[fs.start:], "null")
	}
	return b
}

// unfilled lists task at's placeholders, in field order.
func (f *suiteFile) unfilled(at string) []Fill {
	var out []Fill
	for _, ff := range fillFields {
		if fs, ok := f.fills[at+"."+ff]; ok {
			out = append(out, Fill{Field: ff, Path: at + "." + ff, What: fs.what})
		}
	}
	return out
}

func orZero(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// suiteRoot is the directory an environment's suite scaffolds are
// relative to: its suite_root (relative to the file that writes it), else
// the manifest's directory. unrooted: suite_root is empty, a checkout not
// named yet, which the compiler lets validate and estimate through and
// check and run refuse.
func suiteRoot(e *spec.Environment, manifestDir string) (root string, unrooted bool) {
	v := e.SuiteRoot
	switch {
	case !v.Set:
		return manifestDir, false
	case strings.TrimSpace(v.V) == "":
		return "", true
	case filepath.IsAbs(v.V) || v.Range.Filename == "":
		return v.V, false
	}
	return filepath.Join(filepath.Dir(v.Range.Filename), v.V), false
}

// suiteExcluded is the set of task names an environment's suite_exclude
// leaves out; each must be a task of the manifest.
func suiteExcluded(e *spec.Environment, m *Manifest) (map[string]bool, diag.Diagnostics) {
	if !e.SuiteExclude.Set {
		return nil, nil
	}
	var names []string
	for _, t := range m.Tasks {
		if t != nil {
			names = append(names, t.Name)
		}
	}
	out := map[string]bool{}
	var ds diag.Diagnostics
	for _, n := range e.SuiteExclude.V {
		if !slices.Contains(names, n) {
			detail := "suite_exclude names tasks of the suite's manifest"
			if s := diag.Suggest(n, names); s != "" {
				detail = fmt.Sprintf("did you mean %q? ", s) + detail
			}
			ds = append(ds, diag.Errorf(codeSuite, e.SuiteExclude.Range, "suite_exclude names %q, which the suite %s does not list", n, e.Suite.V).WithDetail("%s", detail))
		}
		out[n] = true
	}
	return out, ds
}

var varRefRE = regexp.MustCompile(`^var\.([A-Za-z_][A-Za-z0-9_-]*)$`)

// rootAdvice says how to name an environment's suite checkout: the
// variable suite_root reads, when it is one.
func rootAdvice(e *spec.Environment, src Sources) string {
	advice := "the directory of your checkout of the suite's task scaffolds, as suite_root"
	r := e.SuiteRoot.Range
	if b, ok := src[r.Filename]; ok && r.Start.Byte >= 0 && r.Start.Byte <= r.End.Byte && r.End.Byte <= len(b) {
		if m := varRefRE.FindStringSubmatch(strings.TrimSpace(string(b[r.Start.Byte:r.End.Byte]))); m != nil {
			advice = fmt.Sprintf("the directory of your checkout of the suite's task scaffolds: -var %s=DIR (suite_root is var.%s)", m[1], m[1])
		}
	}
	return advice
}

// scaffoldDir is a manifest task's scaffold directory: relative to root
// ("" while the checkout is not named).
func scaffoldDir(mt *ManifestTask, root string, unrooted bool) string {
	dir := mt.Scaffold.Repository
	switch {
	case unrooted:
		return ""
	case !filepath.IsAbs(dir):
		return filepath.Join(root, dir)
	}
	return dir
}

// suiteTask is the spec task a manifest task stands for, at its entry:
// what the manifest gives, and its placeholders (the unnamed checkout
// first) as what a run needs.
func suiteTask(e *spec.Environment, f *suiteFile, mt *ManifestTask, entry diag.Range, dir string, src Sources) *spec.Task {
	unrooted := e.SuiteRoot.Set && dir == ""
	t := &spec.Task{Name: mt.Name, NameRange: entry, Range: entry,
		Split: spec.Val[string]{V: mt.Split, Set: true, Range: entry},
		Suite: &spec.SuiteTask{Domain: mt.Domain, Description: mt.Description, Metric: mt.Metric.Name, Direction: mt.Metric.Direction,
			Low: orZero(mt.Bounds.Low), High: orZero(mt.Bounds.High), Command: mt.Evaluate, Dir: dir,
			Revision: mt.Scaffold.Revision, Editable: mt.Scaffold.Editable, Manifest: entry,
			CriticSplit: mt.CriticSplit, Unscored: mt.Scored != nil && !*mt.Scored, Unrooted: unrooted},
	}
	if mt.Baseline != nil {
		t.Baseline = spec.Val[float64]{V: *mt.Baseline, Set: true, Range: entry}
	}
	if mt.Scale != nil {
		t.Scale = spec.Val[float64]{V: *mt.Scale, Set: true, Range: entry}
	}
	if unrooted {
		t.Suite.Unfilled = append(t.Suite.Unfilled, spec.Unfilled{Field: "suite_root", Fill: rootAdvice(e, src), At: e.SuiteRoot.Range})
	}
	for _, u := range mt.Unfilled {
		t.Suite.Unfilled = append(t.Suite.Unfilled, spec.Unfilled{Field: u.Field, Fill: u.What, At: f.rangeOf(u.Path)})
	}
	return t
}
