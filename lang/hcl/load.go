package hcl

import (
	"reflect"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// Options are the command-line inputs of a load.
type Options struct {
	// Vars are raw "name=value" assignments from -var, applied after
	// VarFiles, in order.
	Vars []string
	// VarFiles are paths of HCL files of "name = value" assignments, from
	// -var-file, applied in order.
	VarFiles []string
	// UnknownVar, when set, receives each -var and -var-file name the spec
	// does not declare, instead of an E_VAR_UNKNOWN error. lang/load sets it
	// because a spec with extends may take variables its base declares; it
	// checks the names over every file of the chain. It may be called from
	// another goroutine.
	UnknownVar func(name string, at diag.Range)
	// Inherited are the variables declared by the specs that extend this
	// one, one per name, each with the default of the nearest file that
	// gives one. A variable this spec declares too takes that default over
	// its own, before VarFiles and Vars: a chain of specs has one value per
	// variable. lang/load reports a redeclaration that changes the type;
	// such an entry is skipped here.
	Inherited []*spec.Variable
	// Timeout bounds the time evaluating the spec may take; 0 means the
	// default of 10 s. A spec that runs past it is reported as E_TOO_COMPLEX.
	Timeout time.Duration
}

// Diagnostic codes of this package. Codes shared with the compiler (E_TYPE,
// E_ENUM, ...) mean the same thing there.
const (
	codeSyntax       = "E_SYNTAX"
	codeUnknownField = "E_UNKNOWN_FIELD"
	codeType         = "E_TYPE"
	codeEnum         = "E_ENUM"
	codeDuplicate    = "E_DUPLICATE"
	codeRefSyntax    = "E_REF_SYNTAX"
	codeExpr         = "E_EXPR"
	codeLabel        = "E_LABEL"
	codeVarUnknown   = "E_VAR_UNKNOWN"
	codeVarRequired  = "E_VAR_REQUIRED"
	codeVarType      = "E_VAR_TYPE"
	codeVarSyntax    = "E_VAR_SYNTAX"
	codeLocalCycle   = "E_LOCAL_CYCLE"
	codeFileRead     = "E_FILE_READ"
)

// LoadFile reads and loads the spec at path.
func LoadFile(path string, opts Options) (*spec.Spec, diag.Diagnostics) {
	src, d := readSource(path, "spec")
	if d != nil {
		return nil, diag.Diagnostics{d}
	}
	return Load(path, src, opts)
}

// Load parses, evaluates and decodes one HCL spec. It reports every problem
// it finds, sorted by position, and returns a best-effort spec alongside
// errors so editors and later passes can still work; the spec is nil only
// when the file does not parse.
func Load(filename string, src []byte, opts Options) (*spec.Spec, diag.Diagnostics) {
	lim := budget.Limits{Timeout: opts.Timeout}.WithDefaults()
	if d := tooLarge(filename, src, lim); d != nil {
		return nil, diag.Diagnostics{d}
	}
	file, hd := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if hd.HasErrors() {
		ds := convertAll(hd, codeSyntax)
		ds.Sort()
		return nil, ds
	}
	body := file.Body.(*hclsyntax.Body)

	// Evaluation runs under a deadline and a memory ceiling: expressions are
	// a small language, and neither HCL nor cty can be interrupted.
	l := &loader{track: &tracker{}}
	type result struct {
		s  *spec.Spec
		ds diag.Diagnostics
	}
	r, ex := budget.Run(lim, func() result {
		s := l.evaluate(filename, body, opts)
		return result{s, l.diags}
	})
	if ex != budget.Within {
		s := &spec.Spec{Files: []string{filename}, Range: toRange(body.SrcRange)}
		return s, diag.Diagnostics{exceeded(ex, lim, l.track.at.Load(), body)}
	}
	r.ds.Sort()
	return r.s, r.ds
}

// evaluate reads variables and locals, expands dynamic blocks and decodes
// the spec.
func (l *loader) evaluate(filename string, body *hclsyntax.Body, opts Options) *spec.Spec {
	s := &spec.Spec{Files: []string{filename}, Range: toRange(body.SrcRange)}
	vars := l.variables(body, opts)
	s.Variables = vars.list
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": vars.object()},
		Functions: functions(),
	}
	ctx.Variables["local"] = l.locals(body, ctx)

	expanded := dynblock.Expand(body, ctx)
	l.decodeBody(expanded, spec.Describe(), reflect.ValueOf(s).Elem(), ctx, true)
	return s
}

// loader collects diagnostics across the passes of one load.
type loader struct {
	diags diag.Diagnostics
	// track is shared with the goroutine that waits on the evaluation.
	track *tracker
}

func (l *loader) add(items ...any) { l.diags = l.diags.Append(items...) }

// addHCL converts HCL's own diagnostics, giving each the code of the step
// that produced it.
func (l *loader) addHCL(hd hcl.Diagnostics, code string) { l.add(convertAll(hd, code)) }

func convertAll(hd hcl.Diagnostics, code string) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range hd {
		out = append(out, convertDiag(d, code))
	}
	return out
}

func convertDiag(d *hcl.Diagnostic, code string) *diag.Diagnostic {
	sev := diag.Error
	if d.Severity == hcl.DiagWarning {
		sev = diag.Warning
	}
	out := &diag.Diagnostic{Severity: sev, Code: code, Summary: d.Summary, Detail: d.Detail}
	if d.Subject != nil {
		out.Range = toRange(*d.Subject)
	}
	// Duplicate attributes are found by the parser; they carry the same code
	// as duplicate blocks.
	if strings.HasPrefix(d.Summary, "Attribute redefined") || strings.HasPrefix(d.Summary, "Duplicate ") {
		out.Code = codeDuplicate
	}
	return out
}

func toRange(r hcl.Range) diag.Range {
	return diag.Range{
		Filename: r.Filename,
		Start:    diag.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:      diag.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
	}
}

// Codes documents this front end's codes; the CUE front end emits the same
// codes with the same meanings where they apply.
var Codes = []diag.Code{
	{Code: codeSyntax, Meaning: "the HCL does not parse: a missing brace, quote or equals sign; the message says what was expected"},
	{Code: codeUnknownField, Meaning: "an attribute or block the spec model does not have, with a did-you-mean hint and the fields that are allowed there"},
	{Code: codeType, Meaning: "a value of the wrong type: a string where a number is expected, a list where a block is, ..."},
	{Code: codeEnum, Meaning: "a value is not one of the allowed words"},
	{Code: codeDuplicate, Meaning: "an attribute or single block is written twice, or two labelled blocks of a kind share a name"},
	{Code: codeRefSyntax, Meaning: "a reference is not written kind.name (e.g. role.rwm)"},
	{Code: codeExpr, Meaning: "an expression cannot be evaluated: an unknown local, function or variable, or a function call that fails"},
	{Code: codeLabel, Meaning: "a block has a label where none is allowed, lacks one it needs, or the label is not a valid name"},
	{Code: codeVarUnknown, Meaning: "a -var, -var-file entry or var.NAME names a variable no file of the spec declares"},
	{Code: codeVarRequired, Meaning: "a variable has no default and no value from -var or -var-file"},
	{Code: codeVarType, Meaning: "a variable's value (default, -var or -var-file) does not fit its declared type"},
	{Code: codeVarSyntax, Meaning: "a -var argument is not NAME=VALUE, a variable file does not parse, or a variable's type is not a known type"},
	{Code: codeLocalCycle, Meaning: "locals refer to each other in a cycle"},
	{Code: codeFileRead, Meaning: "a spec or variable file cannot be read, or is not a regular file"},
	{Code: codeTooLarge, Meaning: "a file is larger than a spec may be"},
	{Code: codeTooComplex, Meaning: "a spec nests too deeply, or evaluating it takes too long or too much memory"},
}
