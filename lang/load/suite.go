package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// codeSuite is every fault of a task-suite manifest or of its use.
const codeSuite = "E_SUITE"

// Bounds of a task-suite manifest: a manifest is read whole, so each is
// bounded before anything is allocated for it.
const (
	MaxSuiteBytes       = 1 << 20
	MaxSuiteTasks       = 256
	maxSuiteDepth       = 8
	maxSuiteDescription = 16 << 10
	maxSuiteArgv        = 64
	maxSuiteWord        = 4096
	maxSuiteEditable    = 256
)

// SuiteFormat is the manifest format version this release reads.
const SuiteFormat = 1

// Manifest is a task-suite manifest (docs/task-suites.md).
type Manifest struct {
	Format      int             `json:"format"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Tasks       []*ManifestTask `json:"tasks"`
}

// ManifestTask is one task of a manifest.
type ManifestTask struct {
	Name        string `json:"name"`
	Domain      string `json:"domain"`
	Split       string `json:"split"`
	Description string `json:"description"`
	// Criteria (inline) or CriteriaFile (a file relative to the
	// manifest) are the task understanding and criteria a critic judges
	// the task's candidates by (its templates' .Criteria).
	Criteria     string    `json:"criteria"`
	CriteriaFile string    `json:"criteria_file"`
	Scaffold     *Scaffold `json:"scaffold"`
	Evaluate     []string  `json:"evaluate"`
	Metric       *struct {
		Name      string `json:"name"`
		Direction string `json:"direction"`
	} `json:"metric"`
	Baseline *float64 `json:"baseline"`
	Scale    *float64 `json:"scale"`
	Bounds   *struct {
		Low  *float64 `json:"low"`
		High *float64 `json:"high"`
	} `json:"bounds"`
	// CriticSplit says what the task's pairs trained a critic on: "sft",
	// "grpo" or "heldout" (the critics paper's Table 13 marks); Scored
	// false leaves the task out of the report's averages.
	CriticSplit string `json:"critic_split"`
	Scored      *bool  `json:"scored"`
	// Unfilled are the task's placeholders ({"fill": "what"}), by field;
	// each such field reads as absent.
	Unfilled []Fill `json:"-"`
}

// Fill is a placeholder of a manifest: a value left for the user to write,
// {"fill": "what to write"}. Field is its path in the task ("baseline",
// "bounds.low"), Path its path in the manifest.
type Fill struct {
	Field, Path, What string
}

// Scaffold is a task's research scaffold: the repository (a directory,
// relative to the manifest) at a revision, and the paths a change may edit.
type Scaffold struct {
	Repository string   `json:"repository"`
	Revision   string   `json:"revision"`
	Editable   []string `json:"editable"`
}

// suiteKeys are the keys each object of a manifest may have, by its path
// with list indices dropped.
var suiteKeys = map[string][]string{
	"":                 {"format", "name", "description", "tasks"},
	"tasks[]":          {"name", "domain", "split", "critic_split", "scored", "description", "criteria", "criteria_file", "scaffold", "evaluate", "metric", "baseline", "scale", "bounds"},
	"tasks[].scaffold": {"repository", "revision", "editable"},
	"tasks[].metric":   {"name", "direction"},
	"tasks[].bounds":   {"low", "high"},
	// A value a task may leave to the user: a placeholder object.
	"tasks[].baseline":          {"fill"},
	"tasks[].bounds.low":        {"fill"},
	"tasks[].bounds.high":       {"fill"},
	"tasks[].evaluate":          {"fill"},
	"tasks[].scaffold.editable": {"fill"},
}

// fillFields are the task fields a placeholder may stand for, by path in
// the task.
var fillFields = []string{"baseline", "bounds.low", "bounds.high", "evaluate", "scaffold.editable"}

var (
	suiteNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	revisionRE  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/@{}^~-]{0,255}$`)
	indexRE     = regexp.MustCompile(`\[[0-9]+\]`)
)

// suiteFile is one manifest being read: its name, text and where each
// value of it starts, by JSON path ("tasks[2].bounds.low").
type suiteFile struct {
	name string
	src  []byte
	at   map[string]int
	ds   diag.Diagnostics
	// fills are the placeholders, by path: the text to write and the
	// bytes of the object, which the decoder reads as null.
	fills map[string]fillSpan
}

type fillSpan struct {
	what       string
	start, end int
}

// rangeOf is the range of the value at path, or of the nearest enclosing
// value that has one.
func (f *suiteFile) rangeOf(path string) diag.Range {
	for {
		if off, ok := f.at[path]; ok {
			return f.rangeAt(off)
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			if off, ok := f.at[""]; ok {
				return f.rangeAt(off)
			}
			return f.rangeAt(0)
		}
		path = path[:i]
	}
}

func (f *suiteFile) rangeAt(off int) diag.Range {
	off = min(max(off, 0), len(f.src))
	line := 1 + bytes.Count(f.src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(f.src[:off], '\n')
	p := diag.Pos{Line: line, Column: col, Byte: off}
	return diag.Range{Filename: f.name, Start: p, End: p}
}

func (f *suiteFile) errorf(path, detail, format string, args ...any) {
	d := diag.Errorf(codeSuite, f.rangeOf(path), format, args...)
	if detail != "" {
		d = d.WithDetail("%s", detail)
	}
	f.ds = append(f.ds, d)
}

// ReadManifest reads and checks the task-suite manifest at path. Every
// error is positioned in the manifest. The manifest is nil when it cannot
// be read or parsed; with errors of its content it is returned as read.
func ReadManifest(path string) (*Manifest, diag.Diagnostics) {
	m, _, ds := readManifest(path)
	return m, ds
}

func readManifest(path string) (*Manifest, *suiteFile, diag.Diagnostics) {
	src, err := budget.ReadFile(path, MaxSuiteBytes)
	if err != nil {
		var tl *budget.TooLargeError
		detail := "suite names a JSON task-suite manifest, relative to the spec that writes it (docs/task-suites.md)"
		if errors.As(err, &tl) {
			detail = fmt.Sprintf("a manifest holds at most %d tasks in at most %d bytes; split the suite", MaxSuiteTasks, MaxSuiteBytes)
		}
		return nil, nil, diag.Diagnostics{diag.Errorf(codeSuite, diag.Range{Filename: path}, "cannot read task suite: %v", unwrapPathError(err)).WithDetail("%s", detail)}
	}
	m, f := parseManifest(path, src)
	return m, f, f.ds
}

// ParseManifest parses and checks a manifest's text; name is its file
// name, for diagnostics.
func ParseManifest(name string, src []byte) (*Manifest, diag.Diagnostics) {
	m, f := parseManifest(name, src)
	return m, f.ds
}

// parseManifest is ParseManifest, with the positions it read.
func parseManifest(name string, src []byte) (*Manifest, *suiteFile) {
	f := &suiteFile{name: name, src: src, at: map[string]int{}, fills: map[string]fillSpan{}}
	if len(src) > MaxSuiteBytes {
		f.errorf("", "", "the manifest is larger than %d bytes", MaxSuiteBytes)
		return nil, f
	}
	if !f.walk() {
		return nil, f
	}
	var m Manifest
	if err := json.Unmarshal(f.blanked(), &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// te.Field drops list indices; the value is the last one
			// that starts before te.Offset, where the decoder stopped.
			path, best := te.Field, -1
			for p, off := range f.at {
				if off < int(te.Offset) && (off > best || off == best && len(p) > len(path)) {
					path, best = p, off
				}
			}
			f.errorf(path, "", "%s is a JSON %s, not %s", orTop(path), te.Value, goTypeName(te.Type.Kind().String()))
		} else {
			f.errorf("", "", "the manifest is not valid: %v", err)
		}
		return nil, f
	}
	f.check(&m)
	return &m, f
}

func orTop(path string) string {
	if path == "" {
		return "the manifest"
	}
	return path
}

func goTypeName(kind string) string {
	switch kind {
	case "int", "int64":
		return "an integer"
	case "float64", "ptr":
		return "a number"
	case "string":
		return "a string"
	case "slice":
		return "a list"
	case "struct":
		return "an object"
	}
	return "a " + kind
}

// walk reads the manifest's tokens once, recording where each value is and
// refusing what Unmarshal would accept silently: unknown and duplicate
// keys, and nesting deeper than any manifest needs.
func (f *suiteFile) walk() bool {
	dec := json.NewDecoder(bytes.NewReader(f.src))
	dec.UseNumber()
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(f.src) && strings.IndexByte(" \t\r\n,:", f.src[off]) >= 0 {
			off++
		}
		return off
	}
	var value func(path string, depth int) bool
	value = func(path string, depth int) bool {
		off := start()
		f.at[path] = off
		tok, err := dec.Token()
		if err != nil {
			f.syntax(err, off)
			return false
		}
		d, ok := tok.(json.Delim)
		if parent, isFill := strings.CutSuffix(path, ".fill"); isFill && fillShape(parent) {
			if w, _ := tok.(string); !ok && strings.TrimSpace(w) != "" && len(w) <= maxSuiteWord {
				f.fills[parent] = fillSpan{what: w}
				return true
			}
			f.errorf(path, `a placeholder is {"fill": "what to write here"}`, "%s is not a text of at most %d bytes", path, maxSuiteWord)
			return false
		}
		if !ok {
			return true
		}
		if depth >= maxSuiteDepth {
			f.errorf(path, "", "the manifest nests deeper than %d levels", maxSuiteDepth)
			return false
		}
		shape := indexRE.ReplaceAllString(path, "[]")
		known, checked := suiteKeys[shape]
		seen := map[string]bool{}
		for i := 0; dec.More(); i++ {
			if d == '[' {
				if !value(path+"["+strconv.Itoa(i)+"]", depth+1) {
					return false
				}
				continue
			}
			koff := start()
			k, err := dec.Token()
			if err != nil {
				f.syntax(err, koff)
				return false
			}
			key := k.(string)
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			if seen[key] {
				f.at[sub] = koff
				f.errorf(sub, "", "%s is given twice", sub)
				return false
			}
			seen[key] = true
			if checked && !slices.Contains(known, key) {
				f.at[sub] = koff
				detail := "allowed here: " + strings.Join(known, ", ")
				if s := diag.Suggest(key, known); s != "" {
					detail = fmt.Sprintf("did you mean %q? ", s) + detail
				}
				f.errorf(sub, detail, "unknown key %q in %s", key, orTop(shape))
				return false
			}
			if !value(sub, depth+1) {
				return false
			}
		}
		if _, err := dec.Token(); err != nil {
			f.syntax(err, start())
			return false
		}
		if d == '{' && fillShape(path) {
			fs, ok := f.fills[path]
			if !ok {
				f.errorf(path, `a placeholder is {"fill": "what to write here"}`, "%s is an object without fill", path)
				return false
			}
			fs.start, fs.end = off, int(dec.InputOffset())
			f.fills[path] = fs
		}
		return true
	}
	if !value("", 0) {
		return false
	}
	if off := start(); off < len(f.src) {
		f.errorf("", "", "the manifest holds more than one JSON value")
		f.ds[len(f.ds)-1].Range = f.rangeAt(off)
		return false
	}
	return true
}

func (f *suiteFile) syntax(err error, off int) {
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the manifest ends early"
	}
	f.ds = append(f.ds, diag.Errorf(codeSuite, f.rangeAt(off), "the manifest is not JSON: %s", msg).
		WithDetail("a task-suite manifest is one JSON object (docs/task-suites.md)"))
}

// check checks a parsed manifest's content.
func (f *suiteFile) check(m *Manifest) {
	if m.Format != SuiteFormat {
		f.errorf("format", `write "format": 1`, "format is %d; this release reads task-suite format %d", m.Format, SuiteFormat)
	}
	if len(m.Tasks) == 0 {
		f.errorf("tasks", "", "the manifest lists no tasks")
	}
	if len(m.Tasks) > MaxSuiteTasks {
		f.errorf("tasks", "split the suite into manifests of one environment each", "the manifest lists %d tasks; at most %d", len(m.Tasks), MaxSuiteTasks)
		return
	}
	f.text("description", m.Description, maxSuiteDescription)
	names := map[string]int{}
	for i, t := range m.Tasks {
		at := "tasks[" + strconv.Itoa(i) + "]"
		if t == nil {
			f.errorf(at, "", "%s is null, not a task", at)
			continue
		}
		if j, dup := names[t.Name]; dup && t.Name != "" {
			f.errorf(at+".name", "", "task %q is listed twice (tasks[%d] too)", t.Name, j)
		}
		names[t.Name] = i
		f.task(at, t)
	}
}

func (f *suiteFile) task(at string, t *ManifestTask) {
	t.Unfilled = f.unfilled(at)
	filled := func(field string) bool { _, ok := f.fills[at+"."+field]; return !ok }
	f.name_(at+".name", "name", t.Name)
	f.name_(at+".domain", "domain", t.Domain)
	if t.Split != "train" && t.Split != "holdout" {
		f.errorf(at+".split", `"split": "train" or "holdout"`, "%s.split is %q; want train or holdout", at, t.Split)
	}
	switch t.CriticSplit {
	case "", "sft", "grpo", "heldout":
	default:
		f.errorf(at+".critic_split", `"critic_split": "sft" (used for critic SFT collection), "grpo" (only for critic GRPO) or "heldout" (held out from critic training)`, "%s.critic_split is %q; want sft, grpo or heldout", at, t.CriticSplit)
	}
	f.text(at+".description", t.Description, maxSuiteDescription)
	f.text(at+".criteria", t.Criteria, maxSuiteDescription)
	switch c := t.CriteriaFile; {
	case t.Criteria != "" && c != "":
		f.errorf(at+".criteria_file", "give the criteria inline or in a file, not both", "%s sets both criteria and criteria_file", at)
	case c == "" && f.given(at+".criteria_file"):
		f.errorf(at+".criteria_file", "a path relative to the manifest, or remove the key", "%s.criteria_file is empty", at)
	case len(c) > maxSuiteWord || strings.ContainsRune(c, 0):
		f.errorf(at+".criteria_file", "", "%s.criteria_file is not a path", at)
	}
	f.scaffold(at, t.Scaffold, filled("scaffold.editable"))
	if filled("evaluate") {
		f.argv(at+".evaluate", t.Evaluate)
	}
	if t.Metric == nil {
		f.errorf(at, `"metric": {"name": "val_loss", "direction": "minimize"}`, "%s has no metric", at)
	} else {
		f.name_(at+".metric.name", "metric.name", t.Metric.Name)
		if d := t.Metric.Direction; d != "minimize" && d != "maximize" {
			f.errorf(at+".metric.direction", "", "%s.metric.direction is %q; want minimize or maximize", at, d)
		}
	}
	if t.Baseline == nil && filled("baseline") {
		f.errorf(at, `the metric of the unchanged scaffold, e.g. "baseline": 0.66`, "%s has no baseline", at)
	}
	if t.Scale != nil && !(*t.Scale > 0) {
		f.errorf(at+".scale", "", "%s.scale is %v; want a number above 0", at, *t.Scale)
	}
	switch b := t.Bounds; {
	case b != nil && (!filled("bounds.low") || !filled("bounds.high")):
		// A placeholder bound is written before a run; the one given is
		// still a number.
	case b == nil || b.Low == nil || b.High == nil:
		f.errorf(at+".bounds", `"bounds": {"low": 0, "high": 0.7}: the worst and best scores the metric can practically reach, in either order of direction`, "%s needs bounds with low and high", at)
	case !(*b.Low < *b.High) || math.IsInf(*b.High-*b.Low, 0):
		f.errorf(at+".bounds", "", "%s.bounds: low (%v) must be below high (%v)", at, *b.Low, *b.High)
	}
}

// name_ checks a name-like field: a task, domain or metric name.
func (f *suiteFile) name_(path, what, v string) {
	if !suiteNameRE.MatchString(v) {
		f.errorf(path, "letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64", "%s %q is not a valid name", what, v)
	}
}

func (f *suiteFile) text(path, v string, limit int) {
	if len(v) > limit {
		f.errorf(path, "", "%s is %d bytes; at most %d", path, len(v), limit)
	}
	if strings.ContainsRune(v, 0) {
		f.errorf(path, "", "%s holds a NUL byte", path)
	}
}

func (f *suiteFile) argv(path string, argv []string) {
	switch {
	case len(argv) == 0:
		f.errorf(path, `the evaluator as argv, e.g. "evaluate": ["go", "run", ".", "-task", "spirals"]; no shell reads it`, "%s is missing or empty", path)
		return
	case len(argv) > maxSuiteArgv:
		f.errorf(path, "", "%s has %d words; at most %d", path, len(argv), maxSuiteArgv)
		return
	}
	for i, w := range argv {
		p := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case len(w) > maxSuiteWord:
			f.errorf(p, "", "%s is %d bytes; at most %d", p, len(w), maxSuiteWord)
		case strings.ContainsRune(w, 0):
			f.errorf(p, "", "%s holds a NUL byte, which no argument can carry", p)
		case i == 0 && strings.TrimSpace(w) == "":
			f.errorf(p, "", "%s, the program, is empty", p)
		}
	}
}

func (f *suiteFile) scaffold(at string, s *Scaffold, editable bool) {
	path := at + ".scaffold"
	if s == nil {
		f.errorf(at, `"scaffold": {"repository": ".", "editable": ["train.go"]}`, "%s has no scaffold", at)
		return
	}
	r := s.Repository
	switch {
	case strings.TrimSpace(r) == "":
		f.errorf(path+".repository", "the scaffold's directory, relative to the manifest", "%s.repository is empty", path)
	case strings.Contains(r, "://") || strings.Contains(r, "@") && strings.Contains(r, ":"):
		f.errorf(path+".repository", "clone it and name the clone's directory, relative to the manifest", "%s.repository %q is a URL; this release runs a suite's scaffold from a local directory", path, r)
	case strings.ContainsRune(r, 0) || len(r) > maxSuiteWord:
		f.errorf(path+".repository", "", "%s.repository is not a usable path", path)
	}
	if s.Revision != "" && (!revisionRE.MatchString(s.Revision) || strings.Contains(s.Revision, "..")) {
		f.errorf(path+".revision", "a commit, tag or branch name", "%s.revision %q is not a revision", path, s.Revision)
	}
	if len(s.Editable) == 0 && editable {
		f.errorf(path+".editable", `the files a change may edit, e.g. "editable": ["train.go"]`, "%s.editable is missing or empty", path)
	}
	if len(s.Editable) > maxSuiteEditable {
		f.errorf(path+".editable", "", "%s.editable lists %d paths; at most %d", path, len(s.Editable), maxSuiteEditable)
		return
	}
	for i, e := range s.Editable {
		p := path + ".editable[" + strconv.Itoa(i) + "]"
		c := filepath.ToSlash(filepath.Clean(e))
		if e == "" || filepath.IsAbs(e) || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsRune(e, 0) || len(e) > maxSuiteWord {
			f.errorf(p, "a path inside the repository, relative to its root", "%s %q is not a path inside the scaffold", p, e)
		}
	}
}

// expandSuites adds each environment's suite tasks to its task list and
// each manifest it reads to src, for diagnostic snippets. A suite path is
// relative to the file that writes it.
func expandSuites(s *spec.Spec, src Sources) diag.Diagnostics {
	var ds diag.Diagnostics
	for _, e := range s.Environments {
		if e == nil {
			continue
		}
		if !e.Suite.Set {
			for _, v := range []struct {
				set  bool
				name string
				at   diag.Range
			}{{e.SuiteRoot.Set, "suite_root", e.SuiteRoot.Range}, {e.SuiteExclude.Set, "suite_exclude", e.SuiteExclude.Range}} {
				if v.set {
					ds = append(ds, diag.Errorf(codeSuite, v.at, "environment %q sets %s but names no suite", e.Name, v.name).
						WithDetail("%s shapes the tasks of the environment's suite: add suite = \"manifest.json\", or remove it", v.name))
				}
			}
			continue
		}
		ds = append(ds, expandSuite(e, src)...)
	}
	return ds
}

func expandSuite(e *spec.Environment, src Sources) diag.Diagnostics {
	at := e.Suite.Range
	if strings.TrimSpace(e.Suite.V) == "" {
		return diag.Diagnostics{diag.Errorf(codeSuite, at, "suite is empty").WithDetail("name a task-suite manifest, relative to this file, or remove suite")}
	}
	path := e.Suite.V
	if !filepath.IsAbs(path) && at.Filename != "" {
		path = filepath.Join(filepath.Dir(at.Filename), path)
	}
	m, f, ds := readManifest(path)
	if f != nil {
		src[path] = f.src
	}
	for _, d := range ds {
		if !d.Range.Valid() {
			d.Range = at
		}
	}
	if m == nil || ds.HasErrors() {
		if m == nil && len(ds) > 0 {
			ds[0].Detail = strings.TrimSpace(ds[0].Detail + " (from suite at " + at.String() + ")")
		}
		return ds
	}
	dirOfManifest := filepath.Dir(path)
	root, unrooted := suiteRoot(e, dirOfManifest)
	excluded, xds := suiteExcluded(e, m)
	if len(xds) > 0 {
		return append(ds, xds...)
	}
	written := map[string]*spec.Task{}
	for _, t := range e.TaskList {
		written[t.Name] = t
	}
	for i, mt := range m.Tasks {
		if excluded[mt.Name] {
			continue
		}
		entry := f.rangeOf("tasks[" + strconv.Itoa(i) + "]")
		if w, clash := written[mt.Name]; clash {
			ds = append(ds, diag.Errorf(codeSuite, w.NameRange, "task %q is both written here and listed by the suite %s (%s)", mt.Name, e.Suite.V, entry).
				WithDetail("a suite's tasks join the environment's: rename or remove one of them"))
			continue
		}
		if e.Metric != nil && e.Metric.Direction.Set && e.Metric.Direction.V != mt.Metric.Direction {
			ds = append(ds, diag.Errorf(codeSuite, entry, "task %q is to %s %s, but environment %q's metric is to %s", mt.Name, mt.Metric.Direction, mt.Metric.Name, e.Name, e.Metric.Direction.V).
				WithDetail("an environment's tasks share one direction; put tasks of the other direction in another environment's suite"))
			continue
		}
		if mt.Scaffold.Revision != "" && e.Source == nil {
			// Knob mode runs the directory as it is: a pinned revision
			// would be ignored.
			ds = append(ds, diag.Errorf(codeSuite, f.rangeOf("tasks["+strconv.Itoa(i)+"].scaffold.revision"), "task %q pins its scaffold at revision %q, but environment %q has no source block, so its proposals are knob edits run in the scaffold's directory as it is", mt.Name, mt.Scaffold.Revision, e.Name).
				WithDetail("add a source block to the environment (source mode: candidates are patches of the scaffold at its revision), or remove the revision"))
			continue
		}
		criteria, from, cds := suiteCriteria(f, i, mt, dirOfManifest, src)
		if len(cds) > 0 {
			ds = append(ds, cds...)
			continue
		}
		t := suiteTask(e, f, mt, entry, scaffoldDir(mt, root, unrooted), src)
		t.Suite.Criteria, t.Suite.CriteriaFrom = criteria, from
		written[mt.Name] = t
		e.TaskList = append(e.TaskList, t)
	}
	if e.Metric == nil && len(m.Tasks) > 0 {
		// The environment's metric is its suite's when it writes none.
		first := m.Tasks[0].Metric
		e.Metric = &spec.Metric{Name: spec.Val[string]{V: first.Name, Set: true, Range: at},
			Direction: spec.Val[string]{V: first.Direction, Set: true, Range: at}, Range: at}
		for _, mt := range m.Tasks[1:] {
			if mt.Metric.Direction != first.Direction {
				ds = append(ds, diag.Errorf(codeSuite, f.rangeOf("tasks"), "the suite's tasks mix directions (%s and %s)", first.Direction, mt.Metric.Direction).
					WithDetail("an environment's tasks share one direction; split the suite"))
				break
			}
		}
	}
	return ds
}

// given reports whether the manifest wrote a value at path.
func (f *suiteFile) given(path string) bool {
	_, ok := f.at[path]
	return ok
}

// suiteCriteria are task i's criteria and where they came from: inline
// ("inline"), or read from its criteria_file, a path relative to the
// manifest (the path as written; the file joins src, so saved plans hash
// it and diagnostics quote it). Like a role's criteria file, at most
// MaxPromptFileBytes, its final newline no part of the text.
func suiteCriteria(f *suiteFile, i int, mt *ManifestTask, dir string, src Sources) (string, string, diag.Diagnostics) {
	switch {
	case mt.Criteria != "":
		return mt.Criteria, "inline", nil
	case mt.CriteriaFile == "":
		return "", "", nil
	}
	path := mt.CriteriaFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	b, err := budget.ReadFile(path, MaxPromptFileBytes)
	if err != nil {
		at := f.rangeOf("tasks[" + strconv.Itoa(i) + "].criteria_file")
		return "", "", diag.Diagnostics{diag.Errorf(codeSuite, at, "task %q: cannot read criteria file %s: %v", mt.Name, mt.CriteriaFile, unwrapPathError(err)).
			WithDetail("criteria_file is a path relative to the manifest, of at most 256 KiB; fix the path, or give the criteria inline")}
	}
	src[path] = b
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), mt.CriteriaFile, nil
}
