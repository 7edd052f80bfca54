package hcl

import (
	"fmt"
	"reflect"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/assay-lang/assay/lang/spec"
)

// Write renders a spec model as canonical HCL, e.g. for `assay convert` from
// CUE. Values are written as evaluated (variables keep their declarations and
// defaults, but expressions that used them are written as their results), so
// Load(Write(s)) has the same spec.Tree as s.
func Write(s *spec.Spec) []byte {
	f := hclwrite.NewEmptyFile()
	writeBody(f.Body(), reflect.ValueOf(s).Elem(), spec.Describe(), true)
	out, _ := Format("spec.hcl", f.Bytes())
	if out == nil {
		return f.Bytes() // unreachable for a well-formed model; keep the raw text
	}
	return out
}

func writeBody(body *hclwrite.Body, v reflect.Value, b *spec.BlockSchema, root bool) {
	// Attributes first, then blocks, each in schema order; a blank line
	// separates blocks from whatever comes before them.
	for _, f := range b.Fields {
		if f.Kind == spec.Attr {
			writeAttr(body, f, spec.FieldValue(v, f))
		}
	}
	sep := func() {
		if len(body.Attributes()) > 0 || len(body.Blocks()) > 0 {
			body.AppendNewline()
		}
	}
	for _, f := range b.Fields {
		fv := spec.FieldValue(v, f)
		switch f.Kind {
		case spec.Block:
			if fv.IsNil() {
				continue
			}
			sep()
			nb := body.AppendNewBlock(f.Name, nil)
			writeBody(nb.Body(), fv.Elem(), f.Block, false)
		case spec.Blocks:
			for i := 0; i < fv.Len(); i++ {
				e := fv.Index(i).Elem()
				sep()
				nb := body.AppendNewBlock(f.Name, []string{e.FieldByName("Name").String()})
				if root && f.Name == blockVariable {
					writeVariable(nb.Body(), e.Addr().Interface().(*spec.Variable))
					continue
				}
				writeBody(nb.Body(), e, f.Block, false)
			}
		}
	}
}

func writeVariable(body *hclwrite.Body, v *spec.Variable) {
	if v.Type.Set {
		// Types are written as keywords, as users write them: number, list(number).
		body.SetAttributeRaw("type", hclwrite.Tokens{{Type: hclsyntax.TokenIdent, Bytes: []byte(v.Type.V)}})
	}
	if v.Default.Set {
		body.SetAttributeValue("default", ctyValue(v.Default.V))
	}
	if v.Supply.Set {
		body.SetAttributeValue("supply", cty.StringVal(v.Supply.V))
	}
	if v.Description.Set {
		body.SetAttributeValue("description", cty.StringVal(v.Description.V))
	}
}

func writeAttr(body *hclwrite.Body, f *spec.Field, fv reflect.Value) {
	switch x := fv.Interface().(type) {
	case spec.Ref:
		if x.Set {
			body.SetAttributeTraversal(f.Name, hcl.Traversal{hcl.TraverseRoot{Name: x.Kind}, hcl.TraverseAttr{Name: x.Name}})
		}
		return
	case []spec.Literal:
		if len(x) == 0 {
			return
		}
		l := make([]cty.Value, len(x))
		for i, lit := range x {
			l[i] = ctyValue(lit.Value())
		}
		body.SetAttributeValue(f.Name, cty.TupleVal(l))
		return
	}
	if !fv.FieldByName("Set").Bool() {
		return
	}
	body.SetAttributeValue(f.Name, ctyValue(fv.FieldByName("V").Interface()))
}

// ctyValue converts a plain Go value of the model to cty. Lists become
// tuples and maps objects, the types their HCL literals have.
func ctyValue(x any) cty.Value {
	if sp, ok := x.(spec.Spread); ok {
		return ctyValue(sp.Plain())
	}
	rv := reflect.ValueOf(x)
	if !rv.IsValid() {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	switch rv.Kind() {
	case reflect.String:
		return cty.StringVal(rv.String())
	case reflect.Bool:
		return cty.BoolVal(rv.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return cty.NumberIntVal(rv.Int())
	case reflect.Float64, reflect.Float32:
		return cty.NumberFloatVal(rv.Float())
	case reflect.Slice:
		if rv.Len() == 0 {
			return cty.EmptyTupleVal
		}
		l := make([]cty.Value, rv.Len())
		for i := range l {
			l[i] = ctyValue(rv.Index(i).Interface())
		}
		return cty.TupleVal(l)
	case reflect.Map:
		if rv.Len() == 0 {
			return cty.EmptyObjectVal
		}
		// cty orders object attributes by name, so output is stable.
		m := map[string]cty.Value{}
		for _, k := range rv.MapKeys() {
			m[fmt.Sprint(k.Interface())] = ctyValue(rv.MapIndex(k).Interface())
		}
		return cty.ObjectVal(m)
	}
	panic(fmt.Sprintf("hcl: cannot write a %T", x))
}
