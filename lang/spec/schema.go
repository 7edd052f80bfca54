package spec

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/assay-lang/assay/lang/diag"
)

// FieldKind says how a field is written.
type FieldKind int

const (
	// Attr is an attribute: name = value.
	Attr FieldKind = iota
	// Block is a nested block written at most once: name { ... }.
	Block
	// Blocks are repeated labelled blocks: name "label" { ... }.
	Blocks
)

// Field describes one field of a block.
type Field struct {
	Name string
	Kind FieldKind
	// Type is the attribute's value type as docs show it: string, number,
	// int, bool, any, ref, formula, list(int), list(number), list(literal),
	// map(number), map(any).
	Type  string
	Doc   string
	Enum  []string
	Unit  string
	Block *BlockSchema // for Block and Blocks
	index []int
}

// BlockSchema describes a block type.
type BlockSchema struct {
	Name     string
	Doc      string
	Labelled bool
	Fields   []*Field
	goType   reflect.Type
}

// Field returns the field called name, or nil.
func (b *BlockSchema) Field(name string) *Field {
	for _, f := range b.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FieldNames lists the block's field names, for "did you mean" hints.
func (b *BlockSchema) FieldNames() []string {
	out := make([]string, len(b.Fields))
	for i, f := range b.Fields {
		out[i] = f.Name
	}
	return out
}

var (
	describeOnce sync.Once
	root         *BlockSchema
)

// Describe returns the schema of the whole spec model, derived from the
// struct tags of Spec. It is computed once.
func Describe() *BlockSchema {
	describeOnce.Do(func() {
		root = describe("", "an Assay experiment spec", reflect.TypeOf(Spec{}), false)
	})
	return root
}

var (
	rangeType   = reflect.TypeOf(diag.Range{})
	refType     = reflect.TypeOf(Ref{})
	spreadType  = reflect.TypeOf(Spread{})
	literalType = reflect.TypeOf([]Literal{})
)

func describe(name, doc string, t reflect.Type, labelled bool) *BlockSchema {
	b := &BlockSchema{Name: name, Doc: doc, Labelled: labelled, goType: t}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("assay")
		if !ok {
			continue
		}
		parts := strings.Split(tag, ",")
		f := &Field{Name: parts[0], Doc: sf.Tag.Get("doc"), Unit: sf.Tag.Get("unit"), index: sf.Index}
		if e := sf.Tag.Get("enum"); e != "" {
			f.Enum = strings.Split(e, "|")
		}
		mode := ""
		if len(parts) > 1 {
			mode = parts[1]
		}
		switch mode {
		case "block":
			f.Kind = Block
			f.Block = describe(f.Name, f.Doc, sf.Type.Elem(), false)
		case "blocks":
			f.Kind = Blocks
			f.Block = describe(f.Name, f.Doc, sf.Type.Elem().Elem(), true)
		default:
			f.Kind = Attr
			f.Type = attrType(sf)
		}
		b.Fields = append(b.Fields, f)
	}
	return b
}

func attrType(sf reflect.StructField) string {
	if sf.Type == refType {
		return "ref"
	}
	if sf.Type == literalType {
		return "list(literal)"
	}
	if sf.Tag.Get("assay") == "value" || sf.Tag.Get("assay") == "infeasible" || sf.Tag.Get("assay") == "route" {
		return "formula"
	}
	vt, ok := sf.Type.FieldByName("V")
	if !ok {
		panic("spec: field " + sf.Name + " is neither Val, Ref nor []Literal")
	}
	if vt.Type == spreadType {
		// One number, or { low, expected, high }: an assumed figure.
		return "spread"
	}
	return goTypeName(vt.Type)
}

func goTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Float64:
		return "number"
	case reflect.Int:
		return "int"
	case reflect.Bool:
		return "bool"
	case reflect.Interface:
		return "any"
	case reflect.Slice:
		return "list(" + goTypeName(t.Elem()) + ")"
	case reflect.Map:
		return "map(" + goTypeName(t.Elem()) + ")"
	}
	panic("spec: unsupported value type " + t.String())
}

// FieldValue returns the reflect.Value of field f inside block value v (a
// struct, not a pointer). Front ends use it to fill the model generically.
func FieldValue(v reflect.Value, f *Field) reflect.Value { return v.FieldByIndex(f.index) }

// NewBlock allocates a zero block of schema b and returns a pointer to it.
func NewBlock(b *BlockSchema) reflect.Value { return reflect.New(b.goType) }

// Tree renders the meaning of a spec (no ranges, no unset fields) as nested
// maps: blocks are map[string]any, labelled blocks map[label]map, attribute
// values are float64, string, bool, []any or map[string]any. The semantic
// diff and the CUE writer work on it; equal trees mean equal specs.
func Tree(s *Spec) map[string]any {
	return tree(reflect.ValueOf(s).Elem(), Describe())
}

func tree(v reflect.Value, b *BlockSchema) map[string]any {
	out := map[string]any{}
	for _, f := range b.Fields {
		fv := FieldValue(v, f)
		switch f.Kind {
		case Block:
			if !fv.IsNil() {
				if t := tree(fv.Elem(), f.Block); len(t) > 0 {
					out[f.Name] = t
				} else {
					out[f.Name] = map[string]any{}
				}
			}
		case Blocks:
			if fv.Len() == 0 {
				continue
			}
			m := map[string]any{}
			for i := 0; i < fv.Len(); i++ {
				e := fv.Index(i).Elem()
				m[e.FieldByName("Name").String()] = tree(e, f.Block)
			}
			out[f.Name] = m
		default:
			if x, ok := attrValue(fv); ok {
				out[f.Name] = x
			}
		}
	}
	return out
}

func attrValue(fv reflect.Value) (any, bool) {
	switch x := fv.Interface().(type) {
	case Ref:
		return x.String(), x.Set
	case []Literal:
		if len(x) == 0 {
			return nil, false
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = e.Value()
		}
		return l, true
	}
	if !fv.FieldByName("Set").Bool() {
		return nil, false
	}
	return normalize(fv.FieldByName("V").Interface()), true
}

// normalize turns ints into float64 and typed slices/maps into []any and
// map[string]any, so trees from different front ends compare equal.
func normalize(x any) any {
	if sp, ok := x.(Spread); ok {
		return sp.Plain()
	}
	rv := reflect.ValueOf(x)
	if !rv.IsValid() {
		return nil
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(rv.Int())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Slice:
		l := make([]any, rv.Len())
		for i := range l {
			l[i] = normalize(rv.Index(i).Interface())
		}
		return l
	case reflect.Map:
		m := make(map[string]any, rv.Len())
		for _, k := range rv.MapKeys() {
			m[fmt.Sprint(k.Interface())] = normalize(rv.MapIndex(k).Interface())
		}
		return m
	}
	return x
}

// Removed maps fields that Assay no longer has to what to write instead,
// for the front ends' unknown-field errors.
var Removed = map[string]string{
	"routed_range":        "routed_range is gone: give the range in expected_routed itself, expected_routed = { low = 0.2, expected = 0.363, high = 1 }",
	"build_failure_range": "build_failure_range is gone: give the range in build_failures itself, build_failures = { low = 0, expected = 0.05, high = 0.5 }",
}
