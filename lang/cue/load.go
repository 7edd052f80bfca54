package cue

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/ast/astutil"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	cuejson "cuelang.org/go/encoding/json"
	cueyaml "cuelang.org/go/encoding/yaml"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
	cueschema "github.com/assay-lang/assay/stdlib/cue"
)

// Options are the command-line inputs of a load, as for the HCL front end.
type Options struct {
	// Vars are raw "name=value" assignments from -var, applied after
	// VarFiles, in order. A value is read by the variable's declared type:
	// numbers and bools as such, strings verbatim, lists as CUE/JSON lists.
	Vars []string
	// VarFiles are paths of CUE or JSON files of NAME: VALUE fields, from
	// -var-file, applied in order.
	VarFiles []string
	// UnknownVar, when set, receives each -var and -var-file name the spec
	// does not declare, instead of an E_VAR_UNKNOWN error; see the HCL front
	// end's option of the same name.
	UnknownVar func(name string, at diag.Range)
	// Inherited are the defaults of the specs that extend this one; see the
	// HCL front end's option of the same name.
	Inherited []*spec.Variable
	// Timeout bounds the time evaluating the spec may take; 0 means the
	// default of 10 s. A spec that runs past it is reported as E_TOO_COMPLEX.
	Timeout time.Duration
}

// Diagnostic codes of this package. cue_syntax and cue_constraint are CUE's
// own errors; the others mean what they mean in the HCL front end.
const (
	codeCUESyntax     = "cue_syntax"
	codeCUEConstraint = "cue_constraint"
	codeUnknownField  = "E_UNKNOWN_FIELD"
	codeType          = "E_TYPE"
	codeEnum          = "E_ENUM"
	codeRefSyntax     = "E_REF_SYNTAX"
	codeVarUnknown    = "E_VAR_UNKNOWN"
	codeVarRequired   = "E_VAR_REQUIRED"
	codeVarType       = "E_VAR_TYPE"
	codeVarSyntax     = "E_VAR_SYNTAX"
	codeFileRead      = "E_FILE_READ"
)

// Codes documents the codes only this front end emits; the others mean
// what they mean in the HCL front end.
var Codes = []diag.Code{
	{Code: codeCUESyntax, Meaning: "the CUE, JSON or YAML does not parse, or the files of a CUE package disagree on the package name"},
	{Code: codeCUEConstraint, Meaning: "a value conflicts with the spec's CUE schema or with another value of the spec (CUE's own unification error)"},
}

// varsFile is the name of the synthetic file that holds the var struct.
const varsFile = "<assay vars>"

// LoadFile reads the spec at path: a .cue file, a directory whose .cue
// files form one CUE package, or a spec written as JSON (.json) or YAML
// (.yaml, .yml), which CUE reads as data. It returns a best-effort spec alongside errors;
// the spec is nil only when the CUE does not parse.
func LoadFile(path string, opts Options) (*spec.Spec, diag.Diagnostics) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(codeFileRead, diag.Range{Filename: path}, "cannot read spec: %v", err)}
	}
	var names []string
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, diag.Diagnostics{diag.Errorf(codeFileRead, diag.Range{Filename: path}, "cannot read spec directory: %v", err)}
		}
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".cue") || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				continue
			}
			names = append(names, filepath.Join(path, n))
		}
		if len(names) == 0 {
			return nil, diag.Diagnostics{diag.Errorf(codeFileRead, diag.Range{Filename: path}, "directory %s holds no .cue files", path).
				WithDetail("A CUE spec is a .cue file or a directory of .cue files of one package.")}
		}
	} else {
		names = []string{path}
	}
	files := make([]Source, 0, len(names))
	room := budget.DefaultMaxSourceBytes // the files of a package share the limit
	for _, n := range names {
		if room <= 0 {
			room = 1 // any byte more is too many
		}
		b, d := readSource(n, "spec", room)
		if d != nil {
			return nil, diag.Diagnostics{d}
		}
		room -= len(b)
		files = append(files, Source{Name: n, Src: b})
	}
	return Load(files, opts)
}

// parseSource parses one file by its extension: JSON (.json) and YAML
// (.yaml, .yml) are read by CUE's own encoders into the same syntax tree
// as CUE, so a spec written in either is checked, positioned and decoded
// exactly as a CUE spec. The error is a *diag.Diagnostic for a limit, else
// CUE's. The decoders are a library's: a panic in one (CUE's YAML decoder
// indexes past its line table on a file of bare carriage returns) becomes
// a positioned error, never a crash of the command or the language server.
func parseSource(f Source, lim budget.Limits) (af *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			af, err = nil, diag.Errorf(codeCUESyntax, fileStart(f.Name), "the %s decoder could not read this file", strings.ToUpper(Language(f.Name))).
				WithDetail("Save the file with plain line endings (LF or CRLF, not a bare CR) and check it is valid %s.", strings.ToUpper(Language(f.Name)))
		}
	}()
	switch Language(f.Name) {
	case "json":
		x, err := cuejson.Extract(f.Name, f.Src)
		if err != nil {
			return nil, err
		}
		if _, ok := x.(*ast.StructLit); !ok {
			return nil, diag.Errorf(codeType, fileStart(f.Name), "a JSON spec must be an object of the spec's fields").
				WithDetail("Write {\"name\": ..., \"loop\": {...}, ...}, as in the JSON Schema that assay schema prints.")
		}
		return astutil.ToFile(x)
	case "yaml":
		af, err := cueyaml.Extract(f.Name, f.Src)
		if err != nil {
			return nil, yamlError(f.Name, err)
		}
		for _, d := range af.Decls {
			if _, ok := d.(*ast.EmbedDecl); ok {
				return nil, diag.Errorf(codeType, fileStart(f.Name), "a YAML spec must be a mapping of the spec's fields").
					WithDetail("Write name: ..., loop: ..., and so on, as in the JSON Schema that assay schema prints.")
			}
		}
		return af, nil
	}
	if d := labelChain(f.Name, f.Src, lim.MaxDepth); d != nil {
		return nil, d
	}
	return parser.ParseFile(f.Name, f.Src, parser.ParseComments)
}

// yamlLine is how the YAML decoder places an error: "NAME:LINE: message".
var yamlLine = regexp.MustCompile(`^(?s)(.*?):(\d+): (.*)$`)

// yamlError turns a YAML syntax error, which carries its line only in its
// text, into a positioned diagnostic.
func yamlError(name string, err error) *diag.Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	at := fileStart(name)
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, e := strconv.Atoi(m[2]); e == nil && n > 0 {
			at.Start.Line, at.End.Line = n, n
		}
		msg = m[3]
	}
	return diag.Errorf(codeCUESyntax, at, "invalid YAML: %s", msg).
		WithDetail("A YAML spec is a mapping of the spec's fields, as in the JSON Schema that assay schema prints.")
}

// Language tells the data language of a file this front end reads by its
// extension: "json", "yaml", or "cue" for everything else.
func Language(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	}
	return "cue"
}

// Source is one CUE, JSON or YAML file's name and content.
type Source struct {
	Name string
	Src  []byte
}

// Load evaluates CUE sources that form one package and decodes the spec.
func Load(files []Source, opts Options) (*spec.Spec, diag.Diagnostics) {
	lim := budget.Limits{Timeout: opts.Timeout}.WithDefaults()
	if d := tooLarge(files, lim); d != nil {
		return nil, diag.Diagnostics{d}
	}
	l := &loader{userFiles: map[string]bool{}, suppress: map[string]bool{}, phase: &phase{}}
	var parsed []*ast.File
	pkg := ""
	for i, f := range files {
		l.userFiles[f.Name] = true
		if l.first == "" {
			l.first = f.Name
		}
		af, err := parseSource(f, lim)
		if d, ok := err.(*diag.Diagnostic); ok {
			l.add(d)
			continue
		}
		if err != nil {
			l.addCUE(err, codeCUESyntax)
			continue
		}
		if d := l.tooDeep(af, lim); d != nil {
			l.add(d)
			continue
		}
		if d := l.unsafeCalls(af); d != nil {
			l.add(d)
			continue
		}
		name := af.PackageName()
		if i > 0 && name != pkg {
			l.add(diag.Errorf(codeCUESyntax, l.rangeOf(af.Pos()), "file is in package %q, but %s is in package %q", name, files[0].Name, pkg).
				WithDetail("All .cue files of a spec directory belong to one package."))
			continue
		}
		pkg = name
		parsed = append(parsed, af)
	}
	if l.diags.HasErrors() {
		l.diags.Sort()
		return nil, l.diags
	}
	if pkg == "" {
		// Files without a package clause do not share a scope with the
		// synthetic var file; give them all one package.
		pkg = "assayspec"
		for _, f := range parsed {
			f.Decls = append([]ast.Decl{&ast.Package{Name: ast.NewIdent(pkg)}}, f.Decls...)
		}
	}

	// CUE cannot interrupt an evaluation, and a few lines of CUE can ask for
	// billions of values, so evaluation runs under a deadline and a memory
	// ceiling. The loader is the evaluation's alone until it returns.
	at, suspects := l.suspects(parsed)
	s, ex := budget.Run(lim, func() *spec.Spec { return l.evaluate(files, parsed, pkg, opts) })
	if ex != budget.Within {
		s := &spec.Spec{Files: []string{}, Range: diag.Range{Filename: files[0].Name}}
		for _, f := range files {
			s.Files = append(s.Files, f.Name)
		}
		return s, diag.Diagnostics{exceeded(ex, lim, l.phase.get(), at, suspects)}
	}
	l.diags = l.diags.Dedup()
	l.diags.Sort()
	return s, l.diags
}

// evaluate builds the package twice (for the variables, then with their
// values), unifies it with the schema and decodes the spec. It returns nil
// when the package does not build.
func (l *loader) evaluate(files []Source, parsed []*ast.File, pkg string, opts Options) *spec.Spec {
	ctx := newContext()

	// Phase 1 reads the declared variables with an open var struct, so
	// variable defaults are known before var.NAME gets its value.
	l.phase.set("evaluating the spec")
	first, err := build1(ctx, parsed, pkg, "var: {...}\n")
	if err != nil {
		l.add(err)
		return nil
	}
	vars := l.variables(ctx, first, opts)

	// Phase 2 evaluates the spec with the final variable values.
	raw, err := build1(ctx, parsed, pkg, vars.source())
	if err != nil {
		l.add(err)
		return nil
	}
	schema := ctx.CompileBytes(cueschema.Schema, cue.Filename(cueschema.Filename)).LookupPath(cue.MakePath(cue.Def("#Spec")))
	if schema.Err() != nil {
		panic("cue: stdlib schema does not compile: " + schema.Err().Error())
	}
	l.phase.set("checking the spec against the schema")
	unified := raw.Unify(schema)
	if err := unified.Validate(cue.Concrete(true)); err != nil {
		l.constraintErrors(err)
	}

	l.phase.set("decoding the spec")
	s := &spec.Spec{Range: l.rangeOf(parsed[0].Pos())}
	for _, f := range files {
		s.Files = append(s.Files, f.Name)
	}
	s.Range.Start, s.Range.End = diag.Pos{Line: 1, Column: 1}, diag.Pos{Line: 1, Column: 1}
	if raw.Kind() != cue.StructKind && raw.Err() == nil {
		l.add(diag.Errorf(codeType, s.Range, "a spec must be a CUE struct, got %s", raw.Kind()))
	} else {
		l.block(raw, spec.Describe(), specValue(s), nil)
	}
	vars.apply(s)
	return s
}

// newContext returns a fresh CUE context per load: contexts are not safe for
// concurrent use, and a fresh one is cheap next to evaluating a spec.
func newContext() *cue.Context { return cuecontext.New() }

// build1 builds the user's files plus a synthetic file holding the var
// struct into one instance.
func build1(ctx *cue.Context, files []*ast.File, pkg, vars string) (cue.Value, *diag.Diagnostic) {
	inst := build.NewContext().NewInstance("", nil)
	for _, f := range files {
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, diag.Errorf(codeCUESyntax, fileStart(f.Filename), "%v", err)
		}
	}
	head := ""
	if pkg != "" {
		head = "package " + pkg + "\n"
	}
	vf, err := parser.ParseFile(varsFile, head+vars)
	if err != nil {
		panic("cue: synthetic var file does not parse: " + err.Error())
	}
	if err := inst.AddSyntax(vf); err != nil {
		return cue.Value{}, diag.Errorf(codeCUESyntax, diag.Range{Filename: files[0].Filename}, "%v", err)
	}
	v := ctx.BuildInstance(inst)
	return v, nil
}

type loader struct {
	diags     diag.Diagnostics
	userFiles map[string]bool
	// first is the package's first file, where errors without a position
	// are reported.
	first string
	// varErrors is set when a variable has no usable value: uses of it are
	// then undefined or incomplete, which says nothing new.
	varErrors bool
	// suppress holds model paths where CUE already reported an error, so the
	// decoder does not report the same problem again in its own words.
	suppress map[string]bool
	// phase is shared with the goroutine that waits on the evaluation.
	phase *phase
}

func (l *loader) add(d *diag.Diagnostic) { l.diags = l.diags.Append(d) }

// addCUE converts CUE errors one by one.
func (l *loader) addCUE(err error, code string) {
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		l.add(diag.Errorf(code, l.errRange(e), "%s%s", fmt.Sprintf(format, args...), l.pathIfNoPos(e)))
	}
}

// errRange picks the error position that lies in the user's files: CUE
// lists the schema's positions too, and the user cannot edit those.
func (l *loader) errRange(e cueerrors.Error) diag.Range {
	cands := append([]token.Pos{e.Position()}, e.InputPositions()...)
	for _, p := range cands {
		if p.IsValid() && l.userFiles[p.Filename()] {
			return l.rangeOf(p)
		}
	}
	for _, p := range cands {
		if p.IsValid() && p.Filename() != cueschema.Filename && p.Filename() != varsFile {
			return l.rangeOf(p)
		}
	}
	// Some errors (a structural cycle) carry no position at all: the start
	// of the spec, with the field's path in the message (pathIfNoPos),
	// still says where to look.
	if l.first != "" {
		return diag.Range{Filename: l.first, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
	}
	return diag.Range{}
}

// pathIfNoPos is " (at PATH)" for an error that carries no position, so its
// message names the field errRange cannot point at.
func (l *loader) pathIfNoPos(e cueerrors.Error) string {
	for _, p := range append([]token.Pos{e.Position()}, e.InputPositions()...) {
		if p.IsValid() && p.Filename() != cueschema.Filename && p.Filename() != varsFile {
			return ""
		}
	}
	if p := e.Path(); len(p) > 0 {
		return " (at " + strings.Join(p, ".") + ")"
	}
	return ""
}

func (l *loader) rangeOf(p token.Pos) diag.Range {
	if !p.IsValid() {
		return diag.Range{}
	}
	pos := diag.Pos{Line: p.Line(), Column: p.Column(), Byte: p.Offset()}
	return diag.Range{Filename: p.Filename(), Start: pos, End: pos}
}

// nodeRange spans an AST node.
func (l *loader) nodeRange(n ast.Node) diag.Range {
	r := l.rangeOf(n.Pos())
	if end := n.End(); end.IsValid() && end.Filename() == n.Pos().Filename() {
		r.End = diag.Pos{Line: end.Line(), Column: end.Column(), Byte: end.Offset()}
	}
	return r
}

// valueRange is where a value is written: the expression after the field's
// colon when CUE knows it, else the value's position.
func (l *loader) valueRange(v cue.Value) diag.Range {
	switch n := v.Source().(type) {
	case *ast.Field:
		if n.Value != nil && l.userFiles[n.Value.Pos().Filename()] {
			return l.nodeRange(n.Value)
		}
	case nil:
	default:
		if l.userFiles[n.Pos().Filename()] {
			return l.nodeRange(n)
		}
	}
	return l.rangeOf(v.Pos())
}

// labelRange is where a field's label is written.
func (l *loader) labelRange(v cue.Value) diag.Range {
	if f, ok := v.Source().(*ast.Field); ok && f.Label != nil {
		return l.nodeRange(f.Label)
	}
	return l.rangeOf(v.Pos())
}

// constraintErrors maps the errors of unifying with #Spec to diagnostics,
// one per model path: CUE reports each failed branch of a disjunction
// separately, which says the same thing several times.
func (l *loader) constraintErrors(err error) {
	type group struct {
		path  []string
		first cueerrors.Error
		errs  []cueerrors.Error
	}
	var order []string
	groups := map[string]*group{}
	for _, e := range cueerrors.Errors(err) {
		key := strings.Join(e.Path(), ".")
		g, ok := groups[key]
		if !ok {
			g = &group{path: e.Path()}
			groups[key] = g
			order = append(order, key)
		}
		g.errs = append(g.errs, e)
		format, _ := e.Msg()
		if g.first == nil && !strings.Contains(format, "errors in empty disjunction") {
			g.first = e
		}
	}
	for _, key := range order {
		g := groups[key]
		if g.first == nil {
			g.first = g.errs[0]
		}
		format, args := g.first.Msg()
		msg := fmt.Sprintf(format, args...)
		rng := l.errRange(g.first)
		if l.varErrors && (strings.Contains(msg, "undefined field") || strings.Contains(msg, "incomplete value") || strings.Contains(msg, "non-concrete")) {
			l.suppress[key] = true
			continue
		}
		if strings.Contains(format, "field not allowed") {
			// Unknown fields are Assay's check: the decoder reports them with
			// the same code and hint as the HCL front end.
			continue
		}
		l.suppress[key] = true
		f := fieldAt(g.path)
		switch {
		case f != nil && len(f.Enum) > 0:
			l.add(diag.Errorf(codeCUEConstraint, rng, "%s must be one of %s", key, quoteAll(f.Enum)).WithDetail("CUE: %s", msg))
		case f != nil && f.Type == "ref":
			l.add(diag.Errorf(codeCUEConstraint, rng, "%s must be a reference such as \"role.rwm\"", key).
				WithDetail("Write the string \"kind.name\" or the CUE reference kind.name; a field named like the block kind (reward: reward.x) refers to itself in CUE, so write \"reward.x\" there. CUE: %s", msg))
		default:
			d := diag.Errorf(codeCUEConstraint, rng, "%s%s", msg, l.pathIfNoPos(g.first))
			if f != nil {
				d.WithDetail("%s takes %s: %s.", key, f.Type, f.Doc)
			}
			l.add(d)
		}
	}
}

// fieldAt finds the attribute a CUE path names, skipping block labels.
func fieldAt(path []string) *spec.Field {
	b := spec.Describe()
	for i := 0; i < len(path); i++ {
		f := b.Field(path[i])
		if f == nil {
			return nil
		}
		switch f.Kind {
		case spec.Attr:
			if i == len(path)-1 {
				return f
			}
			return nil
		case spec.Blocks:
			i++
		}
		b = f.Block
	}
	return nil
}

func quoteAll(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
