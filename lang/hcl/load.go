package hcl

import (
	"os"
	"reflect"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"assay/lang/diag"
	"assay/lang/spec"
)

// Options are the command-line inputs of a load.
type Options struct {
	// Vars are raw "name=value" assignments from -var, applied after
	// VarFiles, in order.
	Vars []string
	// VarFiles are paths of HCL files of "name = value" assignments, from
	// -var-file, applied in order.
	VarFiles []string
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
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(codeFileRead, diag.Range{Filename: path}, "cannot read spec: %v", err)}
	}
	return Load(path, src, opts)
}

// Load parses, evaluates and decodes one HCL spec. It reports every problem
// it finds, sorted by position, and returns a best-effort spec alongside
// errors so editors and later passes can still work; the spec is nil only
// when the file does not parse.
func Load(filename string, src []byte, opts Options) (*spec.Spec, diag.Diagnostics) {
	file, hd := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if hd.HasErrors() {
		ds := convertAll(hd, codeSyntax)
		ds.Sort()
		return nil, ds
	}
	body := file.Body.(*hclsyntax.Body)

	s := &spec.Spec{Files: []string{filename}, Range: toRange(body.SrcRange)}
	l := &loader{}

	vars := l.variables(body, opts)
	s.Variables = vars.list
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": vars.object()},
		Functions: functions(),
	}
	ctx.Variables["local"] = l.locals(body, ctx)

	expanded := dynblock.Expand(body, ctx)
	l.decodeBody(expanded, spec.Describe(), reflect.ValueOf(s).Elem(), ctx, true)

	l.diags.Sort()
	return s, l.diags
}

// loader collects diagnostics across the passes of one load.
type loader struct {
	diags diag.Diagnostics
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
