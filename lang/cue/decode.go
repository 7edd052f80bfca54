package cue

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"cuelang.org/go/cue"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

func specValue(s *spec.Spec) reflect.Value { return reflect.ValueOf(s).Elem() }

// block decodes the CUE struct v into dst (a struct of schema bs), driven by
// the schema alone, so every block type decodes the same way.
func (l *loader) block(v cue.Value, bs *spec.BlockSchema, dst reflect.Value, path []string) {
	if r := dst.FieldByName("Range"); r.IsValid() && r.Type() == reflect.TypeOf(diag.Range{}) && len(path) > 0 {
		r.Set(reflect.ValueOf(l.valueRange(v)))
	}
	it, err := v.Fields()
	if err != nil {
		return // CUE reported it while validating
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		fv := it.Value()
		at := append(append([]string(nil), path...), name)
		key := strings.Join(at, ".")
		if len(path) == 0 && name == "var" {
			continue
		}
		f := bs.Field(name)
		if f == nil {
			where := "the spec"
			if len(path) > 0 {
				where = strings.Join(path, ".")
			}
			d := diag.Errorf(codeUnknownField, l.labelRange(fv), "%s has no field %q", where, name)
			if hint := diag.DidYouMean(name, bs.FieldNames()); hint != "" {
				d.WithDetail("%s The fields are: %s.", hint, strings.Join(bs.FieldNames(), ", "))
			} else {
				d.WithDetail("The fields are: %s. Use a hidden field (_%s) or a definition (#%s) for helper values.", strings.Join(bs.FieldNames(), ", "), name, name)
			}
			l.add(d)
			continue
		}
		if l.suppress[key] {
			continue
		}
		switch f.Kind {
		case spec.Block:
			if fv.IncompleteKind() != cue.StructKind {
				l.typeErr(fv, key, "a block (a CUE struct)")
				continue
			}
			nb := spec.NewBlock(f.Block)
			l.block(fv, f.Block, nb.Elem(), at)
			spec.FieldValue(dst, f).Set(nb)
		case spec.Blocks:
			if fv.IncompleteKind() != cue.StructKind {
				l.typeErr(fv, key, fmt.Sprintf("a struct of %s blocks keyed by name, e.g. %s: NAME: {...}", f.Name, f.Name))
				continue
			}
			list := spec.FieldValue(dst, f)
			entries, err := fv.Fields()
			if err != nil {
				continue
			}
			for entries.Next() {
				label := entries.Selector().Unquoted()
				ev := entries.Value()
				ekey := key + "." + label
				if l.suppress[ekey] {
					continue
				}
				if ev.IncompleteKind() != cue.StructKind {
					l.typeErr(ev, ekey, "a block (a CUE struct)")
					continue
				}
				nb := spec.NewBlock(f.Block)
				e := nb.Elem()
				e.FieldByName("Name").SetString(label)
				if nr := e.FieldByName("NameRange"); nr.IsValid() {
					nr.Set(reflect.ValueOf(l.labelRange(ev)))
				}
				l.block(ev, f.Block, e, append(at, label))
				list.Set(reflect.Append(list, nb))
			}
		default:
			l.attr(fv, f, spec.FieldValue(dst, f), key)
		}
	}
}

func (l *loader) typeErr(v cue.Value, key, want string) {
	got := v.IncompleteKind().String()
	l.add(diag.Errorf(codeType, l.valueRange(v), "%s must be %s, got %s", key, want, got))
}

// attr decodes one attribute into dst (a spec.Val, spec.Ref or
// []spec.Literal) according to the field's type.
func (l *loader) attr(v cue.Value, f *spec.Field, dst reflect.Value, key string) {
	rng := l.valueRange(v)
	if !v.IsConcrete() && v.Kind() != cue.StructKind && v.Kind() != cue.ListKind {
		if l.varErrors {
			return
		}
		l.add(diag.Errorf(codeCUEConstraint, rng, "%s has no concrete value (%v)", key, v).
			WithDetail("Give %s a value; a type or a disjunction without a default is not enough.", key))
		return
	}
	switch f.Type {
	case "ref":
		l.ref(v, dst, key, rng)
		return
	case "list(literal)":
		l.literals(v, dst, key)
		return
	}
	x, ok := l.value(v, f, key, rng)
	if !ok {
		return
	}
	val := dst.FieldByName("V")
	val.Set(reflect.ValueOf(x).Convert(val.Type()))
	dst.FieldByName("Set").SetBool(true)
	dst.FieldByName("Range").Set(reflect.ValueOf(rng))
}

// value decodes the value of a spec.Val field of type f.Type; false when
// it reported an error.
func (l *loader) value(v cue.Value, f *spec.Field, key string, rng diag.Range) (any, bool) {
	switch f.Type {
	case "string", "formula":
		return l.enumString(v, f, key, rng)
	case "int":
		return l.intOf(v, key)
	case "number":
		return l.numberOf(v, key)
	case "bool":
		b, err := v.Bool()
		if err != nil {
			l.typeErr(v, key, "true or false")
			return nil, false
		}
		return b, true
	case "any":
		return l.anyOf(v, key)
	case "spread":
		return l.spreadOf(v, key, rng)
	case "list(int)":
		return listOf(l, v, key, l.intOf)
	case "list(number)":
		return listOf(l, v, key, l.numberOf)
	case "list(string)":
		return listOf(l, v, key, l.stringOf)
	case "map(number)":
		return l.numberMap(v, key)
	case "map(any)":
		if v.Kind() != cue.StructKind {
			l.typeErr(v, key, "a struct")
			return nil, false
		}
		return l.anyOf(v, key)
	default:
		panic("cue: decoder has no case for type " + f.Type)
	}
}

// enumString reads a string, checked against the field's enum if it has one.
func (l *loader) enumString(v cue.Value, f *spec.Field, key string, rng diag.Range) (any, bool) {
	s, err := v.String()
	if err != nil {
		l.typeErr(v, key, "a string")
		return nil, false
	}
	if len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
		d := diag.Errorf(codeEnum, rng, "%s must be one of %s, got %q", key, quoteAll(f.Enum), s)
		if hint := diag.DidYouMean(s, f.Enum); hint != "" {
			d.WithDetail("%s", hint)
		}
		l.add(d)
		return nil, false
	}
	return s, true
}

// spreadOf reads a spread: a bare number, or {low, expected, high}.
func (l *loader) spreadOf(v cue.Value, key string, rng diag.Range) (any, bool) {
	if v.Kind() == cue.IntKind || v.Kind() == cue.FloatKind {
		n, ok := l.numberOf(v, key)
		if !ok {
			return nil, false
		}
		return spec.One(n), true
	}
	if v.Kind() != cue.StructKind {
		l.typeErr(v, key, "a number, or {low: .., expected: .., high: ..}")
		return nil, false
	}
	x, ok := l.anyOf(v, key)
	if !ok {
		return nil, false
	}
	sp, err := spec.SpreadFrom(x)
	if err != nil {
		l.add(diag.Errorf(codeType, rng, "%s must be %v", key, err))
		return nil, false
	}
	return sp, true
}

// listOf reads a list (or a single value standing for a list of one),
// each element through one; it stops at the first bad element.
func listOf[T any](l *loader, v cue.Value, key string, one func(cue.Value, string) (T, bool)) (any, bool) {
	var out []T
	for i, e := range l.listOrOne(v) {
		n, ok := one(e, fmt.Sprintf("%s[%d]", key, i))
		if !ok {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// numberMap reads a struct of numbers; a bad entry is reported and left out.
func (l *loader) numberMap(v cue.Value, key string) (any, bool) {
	out := map[string]float64{}
	it, err := v.Fields()
	if err != nil || v.Kind() != cue.StructKind {
		l.typeErr(v, key, "a struct of numbers, e.g. {B200: 14.0}")
		return nil, false
	}
	for it.Next() {
		if n, ok := l.numberOf(it.Value(), key+"."+it.Selector().Unquoted()); ok {
			out[it.Selector().Unquoted()] = n
		}
	}
	return out, true
}

// literals reads a list of literals (numbers, strings, bools) into dst.
func (l *loader) literals(v cue.Value, dst reflect.Value, key string) {
	if v.Kind() != cue.ListKind {
		l.typeErr(v, key, "a list of numbers, strings or bools")
		return
	}
	var out []spec.Literal
	it, _ := v.List()
	for i := 0; it.Next(); i++ {
		e := it.Value()
		lit := spec.Literal{Range: l.valueRange(e)}
		switch e.Kind() {
		case cue.IntKind, cue.FloatKind:
			lit.Num, _ = e.Float64()
		case cue.StringKind:
			lit.Kind, lit.Str = spec.LitString, mustString(e)
		case cue.BoolKind:
			lit.Kind = spec.LitBool
			lit.Bool, _ = e.Bool()
		default:
			l.typeErr(e, fmt.Sprintf("%s[%d]", key, i), "a number, a string or a bool")
			return
		}
		out = append(out, lit)
	}
	dst.Set(reflect.ValueOf(out))
}

// ref reads a reference: the string "kind.name", or a CUE reference to the
// block itself (role.rwm), whose path gives kind and name.
func (l *loader) ref(v cue.Value, dst reflect.Value, key string, rng diag.Range) {
	var r spec.Ref
	if v.Kind() == cue.StringKind {
		s := mustString(v)
		var err error
		r, err = spec.ParseRef(s)
		if err != nil {
			l.add(diag.Errorf(codeRefSyntax, rng, "%s: %v", key, err))
			return
		}
	} else {
		_, p := v.ReferencePath()
		sels := p.Selectors()
		if len(sels) != 2 || sels[0].LabelType() != cue.StringLabel || sels[1].LabelType() != cue.StringLabel || spec.Describe().Field(sels[0].String()) == nil || spec.Describe().Field(sels[0].String()).Kind != spec.Blocks {
			l.add(diag.Errorf(codeRefSyntax, rng, "%s must be a reference such as \"role.rwm\" or role.rwm, got %s", key, v.IncompleteKind()).
				WithDetail("Refer to a labelled block by kind and name: a string \"kind.name\", or the CUE reference kind.name."))
			return
		}
		r = spec.Ref{Kind: sels[0].String(), Name: sels[1].Unquoted(), Set: true}
	}
	r.Range = rng
	dst.Set(reflect.ValueOf(r))
}

// stringOf reads one string.
func (l *loader) stringOf(v cue.Value, key string) (string, bool) {
	s, err := v.String()
	if err != nil {
		l.typeErr(v, key, "a string")
		return "", false
	}
	return s, true
}

func (l *loader) intOf(v cue.Value, key string) (int, bool) {
	if v.Kind() != cue.IntKind {
		l.typeErr(v, key, "a whole number")
		return 0, false
	}
	n, err := v.Int64()
	if err != nil || n != int64(int(n)) {
		l.add(diag.Errorf(codeType, l.valueRange(v), "%s is out of range", key))
		return 0, false
	}
	return int(n), true
}

func (l *loader) numberOf(v cue.Value, key string) (float64, bool) {
	if v.Kind() != cue.IntKind && v.Kind() != cue.FloatKind {
		l.typeErr(v, key, "a number")
		return 0, false
	}
	n, err := v.Float64()
	if err != nil {
		l.add(diag.Errorf(codeType, l.valueRange(v), "%s is out of range: %v", key, err))
		return 0, false
	}
	return n, true
}

// listOrOne returns a list's elements, or the value itself: a single number
// where a list is expected means that number for every entry.
func (l *loader) listOrOne(v cue.Value) []cue.Value {
	if v.Kind() != cue.ListKind {
		return []cue.Value{v}
	}
	var out []cue.Value
	it, _ := v.List()
	for it.Next() {
		out = append(out, it.Value())
	}
	return out
}

// anyOf converts a concrete value to plain Go data: numbers become float64
// (as in the HCL front end), lists []any, structs map[string]any.
func (l *loader) anyOf(v cue.Value, key string) (any, bool) {
	switch v.Kind() {
	case cue.IntKind, cue.FloatKind:
		return l.numberOf(v, key)
	case cue.StringKind:
		return mustString(v), true
	case cue.BoolKind:
		b, _ := v.Bool()
		return b, true
	case cue.NullKind:
		return nil, true
	case cue.ListKind:
		out := []any{}
		it, _ := v.List()
		for i := 0; it.Next(); i++ {
			x, ok := l.anyOf(it.Value(), fmt.Sprintf("%s[%d]", key, i))
			if !ok {
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	case cue.StructKind:
		out := map[string]any{}
		it, _ := v.Fields()
		for it.Next() {
			k := it.Selector().Unquoted()
			x, ok := l.anyOf(it.Value(), key+"."+k)
			if !ok {
				return nil, false
			}
			out[k] = x
		}
		return out, true
	}
	l.add(diag.Errorf(codeCUEConstraint, l.valueRange(v), "%s has no concrete value (%v)", key, v))
	return nil, false
}

func mustString(v cue.Value) string {
	s, _ := v.String()
	return s
}
