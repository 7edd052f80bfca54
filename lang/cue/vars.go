package cue

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// varSet is the declared variables and their final values.
type varSet struct {
	names  []string
	types  map[string]string // "" when untyped
	ranges map[string]diag.Range
	values map[string]any
	from   map[string]diag.Range // where the final value came from
	// reported are variables whose missing value was already explained.
	reported map[string]bool
	// unknown is Options.UnknownVar.
	unknown func(name string, at diag.Range)
}

// variables reads the variable declarations of the phase-1 value, then
// applies -var-file and -var in that order, and checks every variable ends
// with a value of its type.
func (l *loader) variables(ctx *cue.Context, v cue.Value, opts Options) *varSet {
	vs := &varSet{types: map[string]string{}, ranges: map[string]diag.Range{}, values: map[string]any{}, from: map[string]diag.Range{}, reported: map[string]bool{}, unknown: opts.UnknownVar}
	decl := v.LookupPath(cue.ParsePath("variable"))
	if decl.Exists() && decl.Kind() == cue.StructKind {
		it, _ := decl.Fields()
		for it.Next() {
			name := it.Selector().Unquoted()
			dv := it.Value()
			vs.names = append(vs.names, name)
			vs.ranges[name] = l.labelRange(dv)
			if t, err := dv.LookupPath(cue.ParsePath("type")).String(); err == nil {
				vs.types[name] = t
			}
			if d := dv.LookupPath(cue.ParsePath("default")); d.Exists() && d.IsConcrete() {
				// Type errors of defaults are reported when the model is
				// checked; a default that cannot be read is skipped here.
				if x, ok := plain(d); ok {
					if cx, err := convertVar(x, vs.types[name]); err == nil {
						vs.values[name] = cx
						vs.from[name] = l.valueRange(d)
					} else {
						l.add(diag.Errorf(codeVarType, l.valueRange(d), "default of variable %q: %v", name, err))
						vs.reported[name] = true
					}
				}
			}
		}
	}
	l.inherit(opts.Inherited, vs)
	for _, path := range opts.VarFiles {
		l.varFile(ctx, path, vs)
	}
	for _, raw := range opts.Vars {
		l.varFlag(raw, vs)
	}
	for _, n := range vs.names {
		if _, ok := vs.values[n]; !ok && !vs.reported[n] {
			l.add(diag.Errorf(codeVarRequired, vs.ranges[n], "variable %q has no value", n).
				WithDetail("Give it a default in the spec, pass -var %s=VALUE, or set %s: VALUE in a file passed with -var-file.", n, n))
		}
	}
	for _, d := range l.diags {
		if strings.HasPrefix(d.Code, "E_VAR_") {
			l.varErrors = true
		}
	}
	return vs
}

// inherit applies the defaults of the specs that extend this one
// (Options.Inherited) to the variables this spec declares too.
func (l *loader) inherit(inherited []*spec.Variable, vs *varSet) {
	for _, iv := range inherited {
		t := vs.types[iv.Name]
		if !vs.declared(iv.Name) || !iv.Default.Set || (iv.Type.Set && t != "" && iv.Type.V != t) || vs.reported[iv.Name] {
			continue
		}
		cx, err := convertVar(iv.Default.V, t)
		if err != nil {
			l.add(diag.Errorf(codeVarType, iv.Default.Range, "default of variable %q: %v", iv.Name, err).
				WithDetail("The base spec %s declares %s with that type, and a spec that extends it gives the variable a new value, not a new type.", vs.ranges[iv.Name], iv.Name))
			vs.reported[iv.Name] = true
			delete(vs.values, iv.Name)
			continue
		}
		vs.values[iv.Name] = cx
		vs.from[iv.Name] = iv.Default.Range
	}
}

func (vs *varSet) declared(name string) bool { _, ok := vs.ranges[name]; return ok }

func (l *loader) unknownVar(name string, at diag.Range, vs *varSet) *diag.Diagnostic {
	d := diag.Errorf(codeVarUnknown, at, "the spec declares no variable %q", name)
	if hint := diag.DidYouMean(name, vs.names); hint != "" {
		d.WithDetail("%s", hint)
	} else if len(vs.names) > 0 {
		d.WithDetail("Declared variables: %s.", strings.Join(vs.names, ", "))
	} else {
		d.WithDetail("Declare it first: variable: %s: {type: \"number\", default: ...}.", name)
	}
	return d
}

// varFile applies a CUE or JSON file of NAME: VALUE fields.
func (l *loader) varFile(ctx *cue.Context, path string, vs *varSet) {
	src, d := readSource(path, "variable file", budget.DefaultMaxSourceBytes)
	if d != nil {
		l.add(d)
		return
	}
	l.userFiles[path] = true
	if d := labelChain(path, src, budget.DefaultMaxDepth); d != nil {
		l.add(d)
		return
	}
	v := ctx.CompileBytes(src, cue.Filename(path))
	if err := v.Err(); err != nil {
		l.addCUE(err, codeCUESyntax)
		return
	}
	it, err := v.Fields()
	if err != nil {
		l.add(diag.Errorf(codeVarSyntax, fileStart(path), "a variable file holds NAME: VALUE fields"))
		return
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		fv := it.Value()
		if !vs.declared(name) && vs.unknown != nil {
			vs.unknown(name, l.labelRange(fv))
			continue
		}
		if !vs.declared(name) {
			l.add(l.unknownVar(name, l.labelRange(fv), vs))
			continue
		}
		x, ok := plain(fv)
		if !ok {
			l.add(diag.Errorf(codeVarType, l.valueRange(fv), "variable %q has no concrete value", name))
			continue
		}
		cx, err := convertVar(x, vs.types[name])
		if err != nil {
			l.add(diag.Errorf(codeVarType, l.valueRange(fv), "variable %q: %v", name, err))
			continue
		}
		vs.values[name] = cx
		vs.from[name] = l.valueRange(fv)
	}
}

// varFlag applies one -var NAME=VALUE.
func (l *loader) varFlag(raw string, vs *varSet) {
	at := diag.Range{Filename: "-var"}
	name, value, ok := strings.Cut(raw, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		l.add(diag.Errorf(codeVarSyntax, at, "-var %q is not an assignment", raw).
			WithDetail("Write -var NAME=VALUE, e.g. -var steps=40."))
		return
	}
	if !vs.declared(name) && vs.unknown != nil {
		vs.unknown(name, at)
		return
	}
	if !vs.declared(name) {
		d := l.unknownVar(name, at, vs)
		d.Summary = fmt.Sprintf("-var %s: %s", raw, d.Summary)
		l.add(d)
		return
	}
	var x any
	switch t := vs.types[name]; t {
	case "", "string":
		x = value
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q is a number, got %q", raw, name, value))
			return
		}
		x = n
	case "bool":
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q is true or false, got %q", raw, name, value))
			return
		}
		x = b
	default:
		var list []any
		if err := json.Unmarshal([]byte(value), &list); err != nil {
			l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q is a %s, written as a list such as [1, 2]", raw, name, t))
			return
		}
		x = list
	}
	cx, err := convertVar(x, vs.types[name])
	if err != nil {
		l.add(diag.Errorf(codeVarType, at, "-var %s: variable %q: %v", raw, name, err))
		return
	}
	vs.values[name] = cx
	vs.from[name] = at
}

// convertVar checks x against a declared variable type.
func convertVar(x any, t string) (any, error) {
	switch t {
	case "":
		return x, nil
	case "number":
		if _, ok := x.(float64); ok {
			return x, nil
		}
	case "string":
		if _, ok := x.(string); ok {
			return x, nil
		}
	case "bool":
		if _, ok := x.(bool); ok {
			return x, nil
		}
	case "list(number)", "list(string)":
		l, ok := x.([]any)
		if !ok {
			break
		}
		for _, e := range l {
			if t == "list(number)" {
				if _, ok := e.(float64); !ok {
					return nil, fmt.Errorf("want %s, got an element %v", t, e)
				}
			} else if _, ok := e.(string); !ok {
				return nil, fmt.Errorf("want %s, got an element %v", t, e)
			}
		}
		return x, nil
	default:
		return nil, fmt.Errorf("unknown variable type %q", t)
	}
	return nil, fmt.Errorf("want %s, got %v", t, describeGo(x))
}

func describeGo(x any) string {
	switch x.(type) {
	case float64:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case []any:
		return "a list"
	case map[string]any:
		return "a struct"
	}
	return fmt.Sprintf("%v", x)
}

// plain converts a concrete CUE value to Go data (numbers as float64).
func plain(v cue.Value) (any, bool) {
	l := &loader{userFiles: map[string]bool{}}
	x, ok := l.anyOf(v, "")
	return x, ok && !l.diags.HasErrors()
}

// source renders the var struct as CUE (JSON is CUE). Variables without a
// value are left out; E_VAR_REQUIRED already says why.
func (vs *varSet) source() string {
	m := map[string]any{}
	for n, x := range vs.values {
		m[n] = x
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic("cue: variable values are plain data: " + err.Error())
	}
	return "var: " + string(b) + "\n"
}

// apply records each variable's final value in the model.
func (vs *varSet) apply(s *spec.Spec) {
	for _, v := range s.Variables {
		if x, ok := vs.values[v.Name]; ok {
			v.Value = spec.Of(x, vs.from[v.Name])
		}
	}
}
