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
	cur := func() (any, bool) {
		if !eff.IsValid() || eff.Kind() != reflect.Struct || !eff.FieldByName("V").IsValid() || !eff.FieldByName("Set").Bool() {
			return nil, false
		}
		return eff.FieldByName("V").Interface(), true
	}
	if vs, ok := fieldValues[in.pattern]; ok {
		c, _ := cur()
		for _, x := range vs {
			if !reflect.DeepEqual(x, c) {
				add(x)
			}
		}
		return out
	}
	c, set := cur()
	switch in.f.Type {
	case "string":
		if len(in.f.Enum) > 0 {
			for _, e := range in.f.Enum {
				if e != c {
					add(e)
				}
			}
		} else if set {
			add(c.(string) + "-changed")
		} else {
			add("changed")
		}
	case "int":
		n, _ := c.(int)
		add(n + 1)
	case "number":
		x, _ := c.(float64)
		if x == 0 {
			add(0.5)
		} else {
			add(x * 2)
		}
	case "spread":
		// One number changed, and the same expected figure with a range
		// around it: both the figure and its spread must take effect.
		sp, _ := c.(spec.Spread)
		x := sp.Expected
		if x == 0 {
			add(spec.One(0.5))
			add(spec.Spread{Low: 0, Expected: 0, High: 0.5, Ranged: true})
		} else {
			add(spec.One(x / 2))
			add(spec.Spread{Low: x / 2, Expected: x, High: x, Ranged: true})
		}
	case "bool":
		b, _ := c.(bool)
		add(!b)
	case "list(int)":
		l := append([]int(nil), anySlice[int](c)...)
		if len(l) == 0 {
			l = []int{1}
		} else {
			l[len(l)-1]++
		}
		add(l)
	case "list(number)":
		l := append([]float64(nil), anySlice[float64](c)...)
		if len(l) == 0 {
			l = []float64{0.5}
		} else {
			l[len(l)-1] /= 2
		}
		add(l)
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
		add(m)
	case "map(any)":
		m := map[string]any{}
		if set {
			for k, v := range c.(map[string]any) {
				m[k] = v
			}
		}
		m["assay_mutation"] = 1.0
		add(m)
	case "formula":
		src, _ := c.(string)
		switch {
		case formulaBool[in.pattern] && src != "":
			add("(" + src + ") && votes > 1")
		case formulaBool[in.pattern]:
			add("uncertainty >= 0.5")
		case src != "":
			add("(" + src + ") * 2")
		default:
			add("1")
		}
	case "list(literal)":
		l := in.v.Interface().([]spec.Literal)
		var nl []spec.Literal
		if len(l) > 1 {
			nl = append(nl, l[:len(l)-1]...)
		} else if len(l) == 1 {
			nl = append(nl, l[0], l[0])
		}
		out = append(out, mutation{desc: fmt.Sprint(len(nl), " values"), set: func(fv reflect.Value) { fv.Set(reflect.ValueOf(nl)) }})
	case "ref":
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
			target = firstBlock(s, kind)
			if rk := refRoleKind[in.pattern]; rk != "" {
				target = ""
				for _, ro := range s.Roles {
					if ro.Kind.V == rk || (!ro.Kind.Set && ro.Name == rk) {
						target = ro.Name
						break
					}
				}
			}
			if target == "" {
				return nil // nothing of that kind to point at in this spec
			}
		}
		alt := target + "_alt"
		out = append(out, mutation{
			desc: kind + "." + alt,
			prep: func(s *spec.Spec) { cloneBlock(s, kind, target, alt) },
			set: func(fv reflect.Value) {
				fv.Set(reflect.ValueOf(spec.Ref{Kind: kind, Name: alt, Set: true, Range: mutRange}))
			},
		})
	default:
		t.Errorf("%s: type %s has no generic change; add a value to fieldValues or a proof to specialFields", in.pattern, in.f.Type)
	}
	return out
}

func anySlice[T any](x any) []T {
	l, _ := x.([]T)
	return l
}
