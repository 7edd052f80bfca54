package hcl

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// Top-level blocks that the front end handles itself rather than the model:
// locals are evaluated before decoding, variables are decoded by variables.
const (
	blockLocals   = "locals"
	blockVariable = "variable"
)

// bodySchema turns a model block schema into HCL's, so HCL reports names it
// does not know.
func bodySchema(b *spec.BlockSchema, root bool) *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, f := range b.Fields {
		switch f.Kind {
		case spec.Attr:
			s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: f.Name})
		case spec.Block:
			s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: f.Name})
		case spec.Blocks:
			s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: f.Name, LabelNames: []string{"name"}})
		}
	}
	if root {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: blockLocals})
	}
	return s
}

// decodeBody fills v (a struct of schema b) from body. Everything that can be
// decoded is, so one load reports every problem of the file.
func (l *loader) decodeBody(body hcl.Body, b *spec.BlockSchema, v reflect.Value, ctx *hcl.EvalContext, root bool) {
	content, hd := body.Content(bodySchema(b, root))
	for _, d := range hd {
		l.add(l.contentDiag(d, b, root))
	}
	if content == nil {
		return
	}
	for _, f := range b.Fields {
		switch f.Kind {
		case spec.Attr:
			if a, ok := content.Attributes[f.Name]; ok {
				l.decodeAttr(a, f, spec.FieldValue(v, f), ctx)
			}
		case spec.Block:
			var first *hcl.Block
			for _, blk := range content.Blocks {
				if blk.Type != f.Name {
					continue
				}
				if first != nil {
					l.add(duplicate(f.Name+" block", blk.DefRange, first.DefRange).
						WithDetail("A spec has at most one %s block; it is first defined at %s. Merge the two.", f.Name, toRange(first.DefRange)))
					continue
				}
				first = blk
				nb := spec.NewBlock(f.Block)
				setRange(nb.Elem(), blockRange(blk))
				l.decodeBody(blk.Body, f.Block, nb.Elem(), ctx, false)
				spec.FieldValue(v, f).Set(nb)
			}
		case spec.Blocks:
			if root && f.Name == blockVariable {
				continue // decoded by variables, before any expression
			}
			seen := map[string]*hcl.Block{}
			list := spec.FieldValue(v, f)
			for _, blk := range content.Blocks {
				if blk.Type != f.Name || len(blk.Labels) != 1 {
					continue
				}
				name := blk.Labels[0]
				if prev, dup := seen[name]; dup {
					l.add(duplicate(fmt.Sprintf("%s %q", f.Name, name), blk.LabelRanges[0], prev.LabelRanges[0]))
					continue
				}
				seen[name] = blk
				if name == "" {
					l.add(diag.Errorf(codeLabel, toRange(blk.LabelRanges[0]), "%s name is empty", f.Name).
						WithDetail("Give the block a name, e.g. %s \"main\" { ... }.", f.Name))
					continue
				}
				nb := spec.NewBlock(f.Block)
				e := nb.Elem()
				e.FieldByName("Name").SetString(name)
				e.FieldByName("NameRange").Set(reflect.ValueOf(toRange(blk.LabelRanges[0])))
				setRange(e, blockRange(blk))
				l.decodeBody(blk.Body, f.Block, e, ctx, false)
				list.Set(reflect.Append(list, nb))
			}
		}
	}
}

func setRange(v reflect.Value, r diag.Range) {
	if f := v.FieldByName("Range"); f.IsValid() && f.Type() == reflect.TypeOf(diag.Range{}) {
		f.Set(reflect.ValueOf(r))
	}
}

// blockRange is the whole block when the syntax tree is at hand, else its
// header line.
func blockRange(b *hcl.Block) diag.Range {
	if sb, ok := b.Body.(*hclsyntax.Body); ok {
		r := hcl.RangeBetween(b.DefRange, sb.SrcRange)
		return toRange(r)
	}
	return toRange(b.DefRange)
}

// contentDiag rewrites HCL's structural diagnostics with Assay's codes and
// suggestions drawn from the model's schema.
func (l *loader) contentDiag(d *hcl.Diagnostic, b *spec.BlockSchema, root bool) *diag.Diagnostic {
	r := hcl.Range{}
	if d.Subject != nil {
		r = *d.Subject
	}
	where := b.Name
	if root {
		where = ""
	}
	switch {
	case d.Summary == "Unsupported argument" || d.Summary == "Unsupported block type":
		name := quoted(d.Detail)
		if f := b.Field(name); f != nil {
			if f.Kind == spec.Attr {
				return diag.Errorf(codeUnknownField, toRange(r), "%s is an attribute, not a block", name).
					WithDetail("Write %s = VALUE.", name)
			}
			return diag.Errorf(codeUnknownField, toRange(r), "%s is a block, not an attribute", name).
				WithDetail("Write %s { ... } with the fields inside.", blockExample(f))
		}
		schema := b
		if root {
			schema = &spec.BlockSchema{Fields: append(append([]*spec.Field(nil), b.Fields...), &spec.Field{Name: blockLocals})}
		}
		return unknownField(name, r, schema, where)
	case strings.HasPrefix(d.Summary, "Missing name for"), strings.HasPrefix(d.Summary, "Extraneous label for"):
		name := strings.TrimPrefix(strings.TrimPrefix(d.Summary, "Missing name for "), "Extraneous label for ")
		f := b.Field(name)
		if f != nil && f.Kind == spec.Blocks {
			return diag.Errorf(codeLabel, toRange(r), "a %s block needs exactly one name", name).
				WithDetail("Write %s \"NAME\" { ... }.", name)
		}
		return diag.Errorf(codeLabel, toRange(r), "a %s block takes no name", name).
			WithDetail("Write %s { ... }.", name)
	}
	return convertDiag(d, codeSyntax)
}

func blockExample(f *spec.Field) string {
	if f.Kind == spec.Blocks {
		return f.Name + " \"NAME\""
	}
	return f.Name
}

// quoted returns the first double-quoted word of s.
func quoted(s string) string {
	i := strings.IndexByte(s, '"')
	if i < 0 {
		return ""
	}
	if u, err := strconv.QuotedPrefix(s[i:]); err == nil {
		if x, err := strconv.Unquote(u); err == nil {
			return x
		}
	}
	return ""
}

// decodeAttr evaluates one attribute and stores it in fv by the field's type.
func (l *loader) decodeAttr(a *hcl.Attribute, f *spec.Field, fv reflect.Value, ctx *hcl.EvalContext) {
	defer l.track.enter(a.Expr.Range())()
	rng := toRange(a.Expr.Range())
	switch f.Type {
	case "ref":
		if ref, d := decodeRef(a.Expr, f, ctx); d != nil {
			l.add(d)
		} else {
			fv.Set(reflect.ValueOf(ref))
		}
		return
	case "list(literal)":
		lits, ds := l.decodeLiterals(a.Expr, f, ctx)
		l.add(ds)
		fv.Set(reflect.ValueOf(lits))
		return
	case "formula":
		rng = formulaRange(a.Expr)
	}
	val, hd := a.Expr.Value(ctx)
	if hd.HasErrors() {
		l.addHCL(hd, codeExpr)
		return
	}
	if !val.IsWhollyKnown() || val.IsNull() {
		return // unknown: an error upstream was already reported; null: unset
	}
	x, err := toGo(val, f.Type)
	if err != nil {
		l.add(diag.Errorf(codeType, toRange(a.Expr.Range()), "%s must be %s", f.Name, err.Error()))
		return
	}
	if len(f.Enum) > 0 {
		if s, ok := x.(string); ok && !slices.Contains(f.Enum, s) {
			d := diag.Errorf(codeEnum, toRange(a.Expr.Range()), "%s must be one of %s; got %q", f.Name, strings.Join(quoteAll(f.Enum), ", "), s)
			if hint := diag.DidYouMean(s, f.Enum); hint != "" {
				d = d.WithDetail("%s", hint)
			}
			l.add(d)
			return
		}
	}
	inner := fv.FieldByName("V")
	inner.Set(reflect.ValueOf(x).Convert(inner.Type()))
	fv.FieldByName("Set").SetBool(true)
	fv.FieldByName("Range").Set(reflect.ValueOf(rng))
}

// formulaRange is the range of the text inside the quotes of a plain string,
// so the compiler can offset positions inside a formula; otherwise the
// expression's range.
func formulaRange(expr hcl.Expression) diag.Range {
	if t, ok := expr.(*hclsyntax.TemplateExpr); ok && len(t.Parts) == 1 {
		if lit, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
			return toRange(lit.SrcRange)
		}
	}
	return toRange(expr.Range())
}

// decodeRef reads kind.name written as a bare traversal (role.rwm) or as a
// string ("role.rwm").
func decodeRef(expr hcl.Expression, f *spec.Field, ctx *hcl.EvalContext) (spec.Ref, *diag.Diagnostic) {
	rng := toRange(expr.Range())
	bad := func(got string) *diag.Diagnostic {
		return diag.Errorf(codeRefSyntax, rng, "%s must be a reference written kind.name, got %s", f.Name, got).
			WithDetail("Refer to a block by its type and name, e.g. %s.", refExample(f.Name))
	}
	if t, hd := hcl.AbsTraversalForExpr(expr); !hd.HasErrors() {
		if len(t) == 2 {
			if a, ok := t[1].(hcl.TraverseAttr); ok {
				return spec.Ref{Kind: t.RootName(), Name: a.Name, Set: true, Range: rng}, nil
			}
		}
		return spec.Ref{}, bad(strconv.Quote(string(expr.Range().SliceBytes(nil))))
	}
	val, hd := expr.Value(ctx)
	if hd.HasErrors() || !val.IsWhollyKnown() || val.IsNull() || val.Type() != cty.String {
		return spec.Ref{}, bad("an expression that is not a reference")
	}
	r, err := spec.ParseRef(val.AsString())
	if err != nil {
		return spec.Ref{}, bad(strconv.Quote(val.AsString()))
	}
	r.Range = rng
	return r, nil
}

func refExample(field string) string {
	switch field {
	case "trainer", "benchmark", "llm":
		return "plugin.NAME"
	case "predictor", "role":
		return "role.NAME"
	case "screen":
		return "critic.NAME"
	}
	return field + ".NAME"
}

// decodeLiterals reads a sweep's list of values, each with its own range when
// the list is written out.
func (l *loader) decodeLiterals(expr hcl.Expression, f *spec.Field, ctx *hcl.EvalContext) ([]spec.Literal, diag.Diagnostics) {
	var ds diag.Diagnostics
	val, hd := expr.Value(ctx)
	if hd.HasErrors() {
		return nil, convertAll(hd, codeExpr)
	}
	if !val.IsWhollyKnown() || val.IsNull() {
		return nil, nil
	}
	if !val.Type().IsTupleType() && !val.Type().IsListType() {
		return nil, diag.Diagnostics{diag.Errorf(codeType, toRange(expr.Range()), "%s must be a list of numbers, strings or bools", f.Name)}
	}
	var elems []hclsyntax.Expression
	if tup, ok := expr.(*hclsyntax.TupleConsExpr); ok {
		elems = tup.Exprs
	}
	var out []spec.Literal
	i := 0
	for it := val.ElementIterator(); it.Next(); i++ {
		_, ev := it.Element()
		r := toRange(expr.Range())
		if i < len(elems) {
			r = toRange(elems[i].Range())
		}
		lit := spec.Literal{Range: r}
		switch {
		case ev.IsNull():
			ds = ds.Append(diag.Errorf(codeType, r, "%s must not contain null", f.Name))
			continue
		case ev.Type() == cty.Number:
			lit.Kind, lit.Num = spec.LitNumber, bigFloat(ev)
		case ev.Type() == cty.String:
			lit.Kind, lit.Str = spec.LitString, ev.AsString()
		case ev.Type() == cty.Bool:
			lit.Kind, lit.Bool = spec.LitBool, ev.True()
		default:
			ds = ds.Append(diag.Errorf(codeType, r, "%s must hold numbers, strings or bools, got %s", f.Name, ev.Type().FriendlyName()))
			continue
		}
		out = append(out, lit)
	}
	return out, ds
}

func quoteAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = strconv.Quote(s)
	}
	return out
}
