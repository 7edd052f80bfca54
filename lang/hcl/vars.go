package hcl

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// varSet is the declared variables of a spec and their final values.
type varSet struct {
	list   []*spec.Variable
	types  map[string]cty.Type // cty.DynamicPseudoType when untyped
	values map[string]cty.Value
	// unknown is Options.UnknownVar.
	unknown func(name string, at diag.Range)
}

func (v *varSet) names() []string {
	out := make([]string, len(v.list))
	for i, x := range v.list {
		out[i] = x.Name
	}
	sort.Strings(out)
	return out
}

// object is the value of `var` in expressions. A variable without a value is
// unknown, so expressions that use it do not pile more errors on the one
// already reported.
func (v *varSet) object() cty.Value {
	m := map[string]cty.Value{}
	for _, x := range v.list {
		if val, ok := v.values[x.Name]; ok {
			m[x.Name] = val
		} else {
			m[x.Name] = cty.DynamicVal
		}
	}
	return cty.ObjectVal(m)
}

// varTypes maps the type names a variable block may declare to cty types.
var varTypes = map[string]cty.Type{
	"number":       cty.Number,
	"string":       cty.String,
	"bool":         cty.Bool,
	"list(number)": cty.List(cty.Number),
	"list(string)": cty.List(cty.String),
}

// variables decodes the variable blocks, then applies -var-file and -var in
// that order, and checks that every variable ends with a value.
func (l *loader) variables(body *hclsyntax.Body, opts Options) *varSet {
	vs := &varSet{types: map[string]cty.Type{}, values: map[string]cty.Value{}, unknown: opts.UnknownVar}
	schema := spec.Describe().Field("variable").Block
	fnCtx := &hcl.EvalContext{Functions: functions()}
	seen := map[string]*hclsyntax.Block{}
	for _, b := range body.Blocks {
		if b.Type != "variable" {
			continue
		}
		if len(b.Labels) != 1 {
			continue // reported by the generic decoder's label check
		}
		name := b.Labels[0]
		if prev, dup := seen[name]; dup {
			l.add(duplicate("variable "+strconv.Quote(name), b.LabelRanges[0], prev.LabelRanges[0]))
			continue
		}
		seen[name] = b
		if !hclsyntax.ValidIdentifier(name) {
			l.add(diag.Errorf(codeLabel, toRange(b.LabelRanges[0]), "invalid variable name %q", name).
				WithDetail("A variable name starts with a letter and holds letters, digits, underscores and dashes, so var.NAME can refer to it."))
			continue
		}
		v := &spec.Variable{Name: name, NameRange: toRange(b.LabelRanges[0])}
		ty := cty.DynamicPseudoType
		// A broken declaration already has its error; its value is unknown so
		// that neither "no value" nor its uses add more.
		broken := false
		for _, nb := range b.Body.Blocks {
			l.add(unknownField(nb.Type, nb.TypeRange, schema, "variable"))
		}
		for _, a := range sortedAttrs(b.Body.Attributes) {
			switch a.Name {
			case "type":
				tn, ok := typeName(a.Expr, fnCtx)
				if !ok {
					l.add(diag.Errorf(codeType, toRange(a.Expr.Range()), "type must be a type name such as number").
						WithDetail("Write one of: %s.", strings.Join(schema.Field("type").Enum, ", ")))
					continue
				}
				t, known := varTypes[tn]
				if !known {
					l.add(diag.Errorf(codeEnum, toRange(a.Expr.Range()), "unknown variable type %q", tn).
						WithDetail("The types are: %s.", strings.Join(schema.Field("type").Enum, ", ")))
					broken = true
					continue
				}
				ty = t
				v.Type = spec.Of(tn, toRange(a.Expr.Range()))
			case "default", "description", "supply":
			default:
				l.add(unknownField(a.Name, a.NameRange, schema, "variable"))
			}
		}
		v.Description = l.varText(b, "description", fnCtx)
		v.Supply = l.varText(b, "supply", fnCtx)
		if a, ok := b.Body.Attributes["default"]; ok {
			leave := l.track.enter(a.Expr.Range())
			val, hd := a.Expr.Value(fnCtx)
			leave()
			l.addHCL(hd, codeExpr)
			broken = broken || hd.HasErrors()
			if !hd.HasErrors() {
				if cv, err := convertVar(val, ty); err != nil {
					l.add(diag.Errorf(codeVarType, toRange(a.Expr.Range()), "default of variable %q: %s", name, err))
					broken = true
				} else if !cv.IsNull() {
					v.Default = spec.Of(goValue(cv), toRange(a.Expr.Range()))
					vs.values[name] = cv
					v.Value = v.Default
				}
			}
		}
		if broken {
			vs.values[name] = cty.DynamicVal
		}
		vs.list = append(vs.list, v)
		vs.types[name] = ty
	}

	byName := map[string]*spec.Variable{}
	for _, v := range vs.list {
		byName[v.Name] = v
	}
	l.inherit(opts.Inherited, vs, byName)
	for _, path := range opts.VarFiles {
		l.varFile(path, vs, byName, fnCtx)
	}
	for _, raw := range opts.Vars {
		l.varFlag(raw, vs, byName)
	}
	for _, v := range vs.list {
		if _, ok := vs.values[v.Name]; !ok {
			l.add(diag.Errorf(codeVarRequired, v.NameRange, "variable %q has no value", v.Name).
				WithDetail("Give it a default in the spec, pass -var %s=VALUE, or set %s = VALUE in a file passed with -var-file.", v.Name, v.Name))
		}
	}
	return vs
}

// inherit applies the defaults of the specs that extend this one
// (Options.Inherited) to the variables this spec declares too.
func (l *loader) inherit(inherited []*spec.Variable, vs *varSet, byName map[string]*spec.Variable) {
	for _, iv := range inherited {
		v := byName[iv.Name]
		if v == nil || !iv.Default.Set || (iv.Type.Set && v.Type.Set && iv.Type.V != v.Type.V) {
			continue
		}
		if cur, ok := vs.values[iv.Name]; ok && !cur.IsKnown() {
			continue // the declaration here is broken and already reported
		}
		cv, err := convertVar(ctyValue(iv.Default.V), vs.types[iv.Name])
		if err != nil {
			l.add(diag.Errorf(codeVarType, iv.Default.Range, "default of variable %q: %s", iv.Name, err).
				WithDetail("The base spec %s declares %s with that type, and a spec that extends it gives the variable a new value, not a new type.", v.NameRange, iv.Name))
			vs.values[iv.Name] = cty.DynamicVal
			continue
		}
		vs.values[iv.Name] = cv
		v.Value = spec.Of(goValue(cv), iv.Default.Range)
	}
}

// typeName reads a variable's type written as a keyword (number), a call
// (list(number)) or a string ("number").
func typeName(expr hcl.Expression, ctx *hcl.EvalContext) (string, bool) {
	if kw := hcl.ExprAsKeyword(expr); kw != "" {
		return kw, true
	}
	if call, ok := expr.(*hclsyntax.FunctionCallExpr); ok && len(call.Args) == 1 {
		if inner := hcl.ExprAsKeyword(call.Args[0]); inner != "" {
			return call.Name + "(" + inner + ")", true
		}
		return "", false
	}
	if tmpl, ok := expr.(*hclsyntax.TemplateExpr); ok && tmpl.IsStringLiteral() {
		v, hd := tmpl.Value(ctx)
		if !hd.HasErrors() && v.Type() == cty.String {
			return v.AsString(), true
		}
	}
	return "", false
}

func convertVar(v cty.Value, ty cty.Type) (cty.Value, error) {
	if ty == cty.DynamicPseudoType {
		return v, nil
	}
	cv, err := convert.Convert(v, ty)
	if err != nil {
		return cty.NilVal, fmt.Errorf("want %s, got %s", ty.FriendlyName(), v.Type().FriendlyName())
	}
	return cv, nil
}

// varFile applies a file of "name = value" assignments.
func (l *loader) varFile(path string, vs *varSet, byName map[string]*spec.Variable, ctx *hcl.EvalContext) {
	src, d := readSource(path, "variable file")
	if d != nil {
		l.add(d)
		return
	}
	if d := tooLarge(path, src, budget.Limits{}.WithDefaults()); d != nil {
		l.add(d)
		return
	}
	f, hd := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if hd.HasErrors() {
		l.addHCL(hd, codeSyntax)
		return
	}
	body := f.Body.(*hclsyntax.Body)
	for _, b := range body.Blocks {
		l.add(diag.Errorf(codeSyntax, toRange(b.TypeRange), "a variable file holds only assignments, not blocks").
			WithDetail("Write NAME = VALUE lines; declare variables in the spec itself."))
	}
	for _, a := range sortedAttrs(body.Attributes) {
		v, ok := byName[a.Name]
		if !ok && vs.unknown != nil {
			vs.unknown(a.Name, toRange(a.NameRange))
			continue
		}
		if !ok {
			l.add(unknownVariable(a.Name, toRange(a.NameRange), vs))
			continue
		}
		val, hd := a.Expr.Value(ctx)
		l.addHCL(hd, codeExpr)
		if hd.HasErrors() {
			continue
		}
		cv, err := convertVar(val, vs.types[a.Name])
		if err != nil {
			l.add(diag.Errorf(codeVarType, toRange(a.Expr.Range()), "variable %q: %s", a.Name, err))
			continue
		}
		vs.values[a.Name] = cv
		v.Value = spec.Of(goValue(cv), toRange(a.Expr.Range()))
	}
}

// varFlag applies one -var name=value, parsing value per the declared type.
func (l *loader) varFlag(raw string, vs *varSet, byName map[string]*spec.Variable) {
	at := diag.Range{Filename: "-var"}
	name, value, ok := strings.Cut(raw, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		l.add(diag.Errorf(codeVarSyntax, at, "-var %q is not an assignment", raw).
			WithDetail("Write -var NAME=VALUE, e.g. -var steps=40."))
		return
	}
	v, ok := byName[name]
	if !ok && vs.unknown != nil {
		vs.unknown(name, at)
		return
	}
	if !ok {
		d := unknownVariable(name, at, vs)
		d.Summary = fmt.Sprintf("-var %s: %s", raw, d.Summary)
		l.add(d)
		return
	}
	ty := vs.types[name]
	var val cty.Value
	switch ty {
	case cty.String, cty.DynamicPseudoType:
		val = cty.StringVal(value)
	case cty.Number:
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q is a number, got %q", raw, name, value))
			return
		}
		val = cty.NumberFloatVal(n)
	case cty.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q is true or false, got %q", raw, name, value))
			return
		}
		val = cty.BoolVal(b)
	default:
		if d := tooLarge("-var "+name, []byte(value), budget.Limits{}.WithDefaults()); d != nil {
			d.Range = at
			l.add(d)
			return
		}
		expr, hd := hclsyntax.ParseExpression([]byte(value), "-var "+name, hcl.InitialPos)
		if !hd.HasErrors() {
			val, hd = expr.Value(&hcl.EvalContext{Functions: functions()})
		}
		if hd.HasErrors() {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q is a %s; write it as HCL, e.g. [1, 2, 3]", raw, name, ty.FriendlyName()))
			return
		}
		cv, err := convertVar(val, ty)
		if err != nil {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q: %s", raw, name, err))
			return
		}
		val = cv
	}
	vs.values[name] = val
	v.Value = spec.Of(goValue(val), at)
}

func unknownVariable(name string, at diag.Range, vs *varSet) *diag.Diagnostic {
	d := diag.Errorf(codeVarUnknown, at, "no variable %q is declared", name)
	names := vs.names()
	hint := ""
	if s := diag.DidYouMean(name, names); s != "" {
		hint = s + " "
	}
	if len(names) == 0 {
		return d.WithDetail("%sThe spec declares no variables; declare one with a variable %q block.", hint, name)
	}
	return d.WithDetail("%sThe declared variables are: %s.", hint, strings.Join(names, ", "))
}

// locals evaluates every locals block, in dependency order, and returns the
// value of `local`.
func (l *loader) locals(body *hclsyntax.Body, ctx *hcl.EvalContext) cty.Value {
	exprs := map[string]*hclsyntax.Attribute{}
	var order []string
	for _, b := range body.Blocks {
		if b.Type != "locals" {
			continue
		}
		for _, lb := range b.Labels {
			_ = lb
			l.add(diag.Errorf(codeLabel, toRange(b.LabelRanges[0]), "locals blocks take no label").
				WithDetail("Write locals { name = value }."))
			break
		}
		for _, nb := range b.Body.Blocks {
			l.add(diag.Errorf(codeSyntax, toRange(nb.TypeRange), "locals hold only assignments, not blocks").
				WithDetail("Write name = value, or name = { ... } for an object."))
		}
		for _, a := range sortedAttrs(b.Body.Attributes) {
			if prev, dup := exprs[a.Name]; dup {
				l.add(duplicate("local "+strconv.Quote(a.Name), a.NameRange, prev.NameRange))
				continue
			}
			exprs[a.Name] = a
			order = append(order, a.Name)
		}
	}
	// Each local is evaluated once, after the locals it names, with only
	// those in scope: a file of many locals costs time in proportion to its
	// size, not to its square.
	deps := map[string][]string{}
	missing := map[string]bool{} // names a local that does not exist
	for name, a := range exprs {
		for _, t := range a.Expr.Variables() {
			if dep := localName(t); dep != "" {
				if exprs[dep] != nil {
					deps[name] = append(deps[name], dep)
				} else {
					missing[name] = true
				}
			}
		}
	}
	const (
		visiting = iota + 1
		evaluated
		blocked // in a cycle, or depends on one
	)
	values := map[string]cty.Value{}
	done := map[string]bool{}
	state := map[string]int{}
	var visit func(name string) bool
	visit = func(name string) bool {
		switch state[name] {
		case visiting, blocked:
			return false
		case evaluated:
			return true
		}
		state[name] = visiting
		ok := true
		for _, d := range deps[name] {
			ok = visit(d) && ok
		}
		if !ok {
			state[name] = blocked
			return false
		}
		scope := make(map[string]cty.Value, len(deps[name]))
		for _, d := range deps[name] {
			scope[d] = values[d]
		}
		if missing[name] {
			// The full set, so HCL's error can suggest the local meant.
			scope = withUnknown(values, exprs)
		}
		a := exprs[name]
		ctx.Variables["local"] = cty.ObjectVal(scope)
		leave := l.track.enter(a.Expr.Range())
		val, hd := a.Expr.Value(ctx)
		leave()
		l.addHCL(hd, codeExpr)
		if hd.HasErrors() {
			val = cty.DynamicVal
		}
		values[name] = val
		done[name] = true
		state[name] = evaluated
		return true
	}
	for _, name := range order {
		visit(name)
	}
	for _, name := range order {
		if !done[name] {
			a := exprs[name]
			l.add(diag.Errorf(codeLocalCycle, toRange(a.NameRange), "local %q depends on itself", name).
				WithDetail("Locals may refer to each other, but not in a cycle."))
			values[name] = cty.DynamicVal
		}
	}
	return cty.ObjectVal(withUnknown(values, exprs))
}

func withUnknown(values map[string]cty.Value, exprs map[string]*hclsyntax.Attribute) map[string]cty.Value {
	m := make(map[string]cty.Value, len(exprs))
	for n := range exprs {
		if v, ok := values[n]; ok {
			m[n] = v
		} else {
			m[n] = cty.DynamicVal
		}
	}
	return m
}

func localName(t hcl.Traversal) string {
	if t.RootName() != "local" || len(t) < 2 {
		return ""
	}
	if a, ok := t[1].(hcl.TraverseAttr); ok {
		return a.Name
	}
	return ""
}

func sortedAttrs(m hclsyntax.Attributes) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(m))
	for _, a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte })
	return out
}

// duplicate reports a second definition at r, naming the first at prev.
func duplicate(what string, r, prev hcl.Range) *diag.Diagnostic {
	return diag.Errorf(codeDuplicate, toRange(r), "duplicate %s", what).
		WithDetail("It is first defined at %s; remove or rename one of them.", toRange(prev))
}

// unknownField reports a name the schema does not have, with a suggestion.
func unknownField(name string, r hcl.Range, schema *spec.BlockSchema, where string) *diag.Diagnostic {
	if where == "" {
		where = "the top level of a spec"
	} else {
		where = "a " + where + " block"
	}
	d := diag.Errorf(codeUnknownField, toRange(r), "unknown field %q in %s", name, where)
	if hint, ok := spec.Removed[name]; ok {
		return d.WithDetail("%s", hint)
	}
	names := append([]string(nil), schema.FieldNames()...)
	if s := diag.DidYouMean(name, names); s != "" {
		return d.WithDetail("%s", s)
	}
	return d.WithDetail("The fields are: %s.", strings.Join(names, ", "))
}

// varText is a variable block's string attribute name (description,
// supply), unset when the block has none or it is not a string.
func (l *loader) varText(b *hclsyntax.Block, name string, fnCtx *hcl.EvalContext) spec.Val[string] {
	a, ok := b.Body.Attributes[name]
	if !ok {
		return spec.Val[string]{}
	}
	val, hd := a.Expr.Value(fnCtx)
	l.addHCL(hd, codeExpr)
	if hd.HasErrors() {
		return spec.Val[string]{}
	}
	if val.Type() != cty.String || val.IsNull() {
		l.add(diag.Errorf(codeType, toRange(a.Expr.Range()), "%s must be a string", name))
		return spec.Val[string]{}
	}
	return spec.Of(val.AsString(), toRange(a.Expr.Range()))
}
