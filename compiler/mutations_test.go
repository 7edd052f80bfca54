package compiler

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/assay-lang/assay/lang/spec"
)

// The changes TestEveryFieldIsLive tries on each field (fields_test.go).

// mutation is one change of one attribute: prep runs on both the base and
// the changed spec (a reference needs a second block to point at), set on
// the changed one.
type mutation struct {
	desc string
	x    any
	prep func(*spec.Spec)
	set  func(reflect.Value)
}

func setVal(x any) func(reflect.Value) {
	return func(fv reflect.Value) {
		v := fv.FieldByName("V")
		v.Set(reflect.ValueOf(x).Convert(v.Type()))
		fv.FieldByName("Set").SetBool(true)
		fv.FieldByName("Range").Set(reflect.ValueOf(mutRange))
	}
}

// mutations lists the changes to try for in, given its effective value.
func mutations(t *testing.T, s *spec.Spec, in attrInst, eff reflect.Value) []mutation {
	var out []mutation
	add := func(x any) { out = append(out, mutation{desc: fmt.Sprintf("%v", x), x: x, set: setVal(x)}) }
	c, set := currentValue(eff)
	if vs, ok := fieldValues[in.pattern]; ok {
		for _, x := range vs {
			if !reflect.DeepEqual(x, c) {
				add(x)
			}
		}
		return out
	}
	switch in.f.Type {
	case "list(literal)":
		return literalMutations(in)
	case "ref":
		return refMutations(t, s, in, eff)
	}
	xs, ok := changedScalar(in, c, set)
	if !ok {
		xs, ok = changedCollection(in, c, set)
	}
	if !ok {
		t.Errorf("%s: type %s has no generic change; add a value to fieldValues or a proof to specialFields", in.pattern, in.f.Type)
	}
	for _, x := range xs {
		add(x)
	}
	return out
}

// currentValue is the value of an effective attribute and whether it is
// set.
func currentValue(eff reflect.Value) (any, bool) {
	if !eff.IsValid() || eff.Kind() != reflect.Struct || !eff.FieldByName("V").IsValid() || !eff.FieldByName("Set").Bool() {
		return nil, false
	}
	return eff.FieldByName("V").Interface(), true
}

// changedScalar is the changed values of a string, number or bool
// attribute whose current value is c; false for another type.
func changedScalar(in attrInst, c any, set bool) ([]any, bool) {
	switch in.f.Type {
	case "string":
		if len(in.f.Enum) == 0 && set {
			return []any{c.(string) + "-changed"}, true
		} else if len(in.f.Enum) == 0 {
			return []any{"changed"}, true
		}
		var xs []any
		for _, e := range in.f.Enum {
			if e != c {
				xs = append(xs, e)
			}
		}
		return xs, true
	case "int":
		n, _ := c.(int)
		return []any{n + 1}, true
	case "number":
		x, _ := c.(float64)
		if x == 0 {
			return []any{0.5}, true
		}
		return []any{x * 2}, true
	case "spread":
		// One number changed, and the same expected figure with a range
		// around it: both the figure and its spread must take effect.
		sp, _ := c.(spec.Spread)
		x := sp.Expected
		if x == 0 {
			return []any{spec.One(0.5), spec.Spread{Low: 0, Expected: 0, High: 0.5, Ranged: true}}, true
		}
		return []any{spec.One(x / 2), spec.Spread{Low: x / 2, Expected: x, High: x, Ranged: true}}, true
	case "bool":
		b, _ := c.(bool)
		return []any{!b}, true
	}
	return nil, false
}

// changedCollection is the changed value of a list, map or formula
// attribute whose current value is c; false for another type.
func changedCollection(in attrInst, c any, set bool) ([]any, bool) {
	switch in.f.Type {
	case "list(int)":
		l := append([]int(nil), anySlice[int](c)...)
		if len(l) == 0 {
			l = []int{1}
		} else {
			l[len(l)-1]++
		}
		return []any{l}, true
	case "list(number)":
		l := append([]float64(nil), anySlice[float64](c)...)
		if len(l) == 0 {
			l = []float64{0.5}
		} else {
			l[len(l)-1] /= 2
		}
		return []any{l}, true
	case "map(number)":
		m := map[string]float64{}
		if set {
			for k, v := range c.(map[string]float64) {
				m[k] = v * 2
			}
		}
		if len(m) == 0 {
			m["X"] = 1
		}
		return []any{m}, true
	case "map(any)":
		m := map[string]any{}
		if set {
			for k, v := range c.(map[string]any) {
				m[k] = v
			}
		}
		m["assay_mutation"] = 1.0
		return []any{m}, true
	case "formula":
		return []any{changedFormula(in, c)}, true
	}
	return nil, false
}

// changedFormula is a changed formula source: a bool formula stays bool.
func changedFormula(in attrInst, c any) string {
	src, _ := c.(string)
	switch {
	case formulaBool[in.pattern] && src != "":
		return "(" + src + ") && votes > 1"
	case formulaBool[in.pattern]:
		return "uncertainty >= 0.5"
	case src != "":
		return "(" + src + ") * 2"
	default:
		return "1"
	}
}

// literalMutations changes a list of literals' length.
func literalMutations(in attrInst) []mutation {
	l := in.v.Interface().([]spec.Literal)
	var nl []spec.Literal
	if len(l) > 1 {
		nl = append(nl, l[:len(l)-1]...)
	} else if len(l) == 1 {
		nl = append(nl, l[0], l[0])
	}
	return []mutation{{desc: fmt.Sprint(len(nl), " values"), set: func(fv reflect.Value) { fv.Set(reflect.ValueOf(nl)) }}}
}

// refMutations points a reference at a copy of the block it names (or, when
// unset, at a copy of the first block of its kind).
func refMutations(t *testing.T, s *spec.Spec, in attrInst, eff reflect.Value) []mutation {
	r := in.v.Interface().(spec.Ref)
	if eff.IsValid() {
		if er := eff.Interface().(spec.Ref); er.Set {
			r = er
		}
	}
	kind, target := r.Kind, r.Name
	if !r.Set {
		kind = refKinds[in.pattern]
		if kind == "" {
			t.Errorf("%s: a reference with no entry in refKinds; add the block kind it points at", in.pattern)
			return nil
		}
		target = refTarget(s, in, kind)
		if target == "" {
			return nil // nothing of that kind to point at in this spec
		}
	}
	alt := target + "_alt"
	return []mutation{{
		desc: kind + "." + alt,
		prep: func(s *spec.Spec) { cloneBlock(s, kind, target, alt) },
		set: func(fv reflect.Value) {
			fv.Set(reflect.ValueOf(spec.Ref{Kind: kind, Name: alt, Set: true, Range: mutRange}))
		},
	}}
}

// refTarget is the block an unset reference of kind is pointed at: the
// first of its kind, or for a role reference the first role of its role
// kind; "" when the spec has none.
func refTarget(s *spec.Spec, in attrInst, kind string) string {
	target := firstBlock(s, kind)
	if rk := refRoleKind[in.pattern]; rk != "" {
		target = ""
		for _, ro := range s.Roles {
			if ro.Kind.V == rk || (!ro.Kind.Set && ro.Name == rk) {
				target = ro.Name
				break
			}
		}
	}
	return target
}

func anySlice[T any](x any) []T {
	l, _ := x.([]T)
	return l
}
