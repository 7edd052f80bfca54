package cue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	cueyaml "cuelang.org/go/encoding/yaml"

	"github.com/assay-lang/assay/lang/spec"
)

// Write renders a spec model as canonical CUE: fields in schema order,
// labelled blocks in model order, references as "kind.name" strings and
// evaluated values (variables keep their declarations, but uses of var.NAME
// appear as their values). Loading the output gives the same spec tree.
func Write(s *spec.Spec) []byte {
	var b strings.Builder
	if s.Name.Set && s.Name.V != "" {
		// A comment ends at a line break, so a name holding one (or other
		// control characters) is shown quoted.
		name := s.Name.V
		if strings.ContainsFunc(name, func(r rune) bool {
			return r < ' ' || r == 0x7f || r == utf8.RuneError || r == '\u2028' || r == '\u2029'
		}) {
			name = strconv.Quote(name)
		}
		fmt.Fprintf(&b, "// %s\n", name)
	}
	w := &writer{b: &b}
	w.fields(reflect.ValueOf(s).Elem(), spec.Describe(), 0)
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		panic("cue: Write produced invalid CUE: " + err.Error() + "\n" + b.String())
	}
	return out
}

type writer struct{ b *strings.Builder }

func (w *writer) indent(n int) { w.b.WriteString(strings.Repeat("\t", n)) }

func (w *writer) fields(v reflect.Value, bs *spec.BlockSchema, depth int) {
	for _, f := range bs.Fields {
		fv := spec.FieldValue(v, f)
		switch f.Kind {
		case spec.Block:
			if fv.IsNil() {
				continue
			}
			if depth == 0 {
				w.b.WriteString("\n")
			}
			w.indent(depth)
			fmt.Fprintf(w.b, "%s: {\n", label(f.Name))
			w.fields(fv.Elem(), f.Block, depth+1)
			w.indent(depth)
			w.b.WriteString("}\n")
		case spec.Blocks:
			for i := 0; i < fv.Len(); i++ {
				e := fv.Index(i).Elem()
				if depth == 0 {
					w.b.WriteString("\n")
				}
				w.indent(depth)
				fmt.Fprintf(w.b, "%s: %s: {\n", label(f.Name), label(e.FieldByName("Name").String()))
				w.fields(e, f.Block, depth+1)
				w.indent(depth)
				w.b.WriteString("}\n")
			}
		default:
			x, ok := attr(fv, f)
			if !ok {
				continue
			}
			w.indent(depth)
			fmt.Fprintf(w.b, "%s: %s\n", label(f.Name), x)
		}
	}
}

// attr renders one attribute value, keeping whole numbers of int fields
// as CUE ints and numbers as they print.
func attr(fv reflect.Value, f *spec.Field) (string, bool) {
	switch x := fv.Interface().(type) {
	case spec.Ref:
		return strconv.Quote(x.String()), x.Set
	case []spec.Literal:
		if len(x) == 0 {
			return "", false
		}
		parts := make([]string, len(x))
		for i, l := range x {
			parts[i] = literal(l.Value())
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	}
	if !fv.FieldByName("Set").Bool() {
		return "", false
	}
	return literal(fv.FieldByName("V").Interface()), true
}

// literal renders plain Go data as CUE. Floats print in their shortest
// form; a whole float prints with ".0" only where it would otherwise read
// as an int and the value came from a float field, which CUE's number
// accepts either way.
func literal(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case spec.Spread:
		return literal(v.Plain())
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Slice:
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = literal(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Map:
		keys := make([]string, 0, rv.Len())
		vals := map[string]any{}
		for _, k := range rv.MapKeys() {
			ks := fmt.Sprint(k.Interface())
			keys = append(keys, ks)
			vals[ks] = rv.MapIndex(k).Interface()
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = label(k) + ": " + literal(vals[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	b, _ := json.Marshal(x)
	return string(b)
}

// quote writes a CUE string literal; JSON string syntax is valid CUE except
// that CUE reads \( as interpolation, which JSON never emits.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// label writes a field label, quoted unless it is a plain identifier.
func label(s string) string {
	if ast.IsValidIdent(s) && !strings.HasPrefix(s, "#") && !strings.HasPrefix(s, "_") && !keyword(s) {
		return s
	}
	return quote(s)
}

func keyword(s string) bool {
	switch s {
	case "if", "for", "in", "let", "true", "false", "null", "package", "import", "func":
		return true
	}
	return false
}

// WriteData renders a spec model as JSON (lang "json") or YAML (lang
// "yaml"): the canonical CUE of Write, which is concrete data, exported by
// CUE's own encoders, so loading the output gives the same spec tree.
func WriteData(s *spec.Spec, lang string) ([]byte, error) {
	v := cuecontext.New().CompileBytes(Write(s), cue.Filename("spec.cue"))
	if err := v.Err(); err != nil {
		return nil, err
	}
	if lang == "yaml" {
		return cueyaml.Encode(v)
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
