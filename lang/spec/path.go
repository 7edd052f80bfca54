package spec

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
)

// Paths name a field of the model the way users write it: block names and
// labels joined by dots, e.g. "critic.screen.votes", "loop.rl.steps",
// "budget.real_runs", "environment.olmo3.run_cost.hours". Sweeps set fields
// by path and the semantic diff reports changes by path.

// resolvePath walks s along path and returns the attribute's value and field.
// Missing single blocks are created when create is true.
func resolvePath(s *Spec, path string, create bool) (reflect.Value, *Field, error) {
	parts := strings.Split(path, ".")
	v := reflect.ValueOf(s).Elem()
	b := Describe()
	for i := 0; i < len(parts); i++ {
		f := b.Field(parts[i])
		if f == nil {
			return reflect.Value{}, nil, unknownField(parts[i], b, strings.Join(parts[:i], "."))
		}
		fv := FieldValue(v, f)
		switch f.Kind {
		case Attr:
			if i != len(parts)-1 {
				return reflect.Value{}, nil, fmt.Errorf("%q is an attribute, not a block", strings.Join(parts[:i+1], "."))
			}
			return fv, f, nil
		case Block:
			if fv.IsNil() {
				if !create {
					return reflect.Value{}, nil, fmt.Errorf("the spec has no %q block", strings.Join(parts[:i+1], "."))
				}
				fv.Set(NewBlock(f.Block))
			}
			v, b = fv.Elem(), f.Block
		case Blocks:
			if i+1 >= len(parts) {
				return reflect.Value{}, nil, fmt.Errorf("%q needs a block label, e.g. %s.NAME.FIELD", path, parts[i])
			}
			label := parts[i+1]
			var names []string
			found := reflect.Value{}
			for j := 0; j < fv.Len(); j++ {
				n := fv.Index(j).Elem().FieldByName("Name").String()
				names = append(names, n)
				if n == label {
					found = fv.Index(j).Elem()
				}
			}
			if !found.IsValid() {
				msg := fmt.Sprintf("the spec has no %s %q", parts[i], label)
				if s := diag.DidYouMean(label, names); s != "" {
					msg += "; " + s
				}
				return reflect.Value{}, nil, fmt.Errorf("%s", msg)
			}
			v, b = found, f.Block
			i++
		}
	}
	return reflect.Value{}, nil, fmt.Errorf("%q names a block, not an attribute", path)
}

func unknownField(name string, b *BlockSchema, at string) error {
	where := "the spec"
	if at != "" {
		where = at
	}
	msg := fmt.Sprintf("%s has no field %q", where, name)
	if s := diag.DidYouMean(name, b.FieldNames()); s != "" {
		msg += "; " + s
	}
	return fmt.Errorf("%s", msg)
}

// PathField returns the schema of the attribute at path.
func PathField(s *Spec, path string) (*Field, error) {
	_, f, err := resolvePath(s, path, false)
	return f, err
}

// GetPath returns the value of the attribute at path (nil when unset).
func GetPath(s *Spec, path string) (any, error) {
	v, _, err := resolvePath(s, path, false)
	if err != nil {
		return nil, err
	}
	x, _ := attrValue(v)
	return x, nil
}

// SetPath sets the attribute at path to lit, converting numbers to the
// field's type. Only scalar fields (string, number, int, bool) can be set.
func SetPath(s *Spec, path string, lit Literal) error {
	v, f, err := resolvePath(s, path, true)
	if err != nil {
		return err
	}
	if !Sweepable(f.Type) {
		return fmt.Errorf("%q is of type %s; only string, number, int, bool and assumed-figure fields can be set by path", path, f.Type)
	}
	val := v.FieldByName("V")
	switch f.Type {
	case "string":
		if lit.Kind != LitString {
			return fmt.Errorf("%q takes a string, got %v", path, lit.Value())
		}
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, lit.Str) {
			return fmt.Errorf("%q must be one of %s, got %q", path, strings.Join(f.Enum, ", "), lit.Str)
		}
		val.SetString(lit.Str)
	case "number":
		if lit.Kind != LitNumber {
			return fmt.Errorf("%q takes a number, got %v", path, lit.Value())
		}
		val.SetFloat(lit.Num)
	case "spread":
		// A swept assumption is one number per variant.
		if lit.Kind != LitNumber {
			return fmt.Errorf("%q takes a number, got %v", path, lit.Value())
		}
		val.Set(reflect.ValueOf(One(lit.Num)))
	case "int":
		if lit.Kind != LitNumber || lit.Num != float64(int64(lit.Num)) {
			return fmt.Errorf("%q takes a whole number, got %v", path, lit.Value())
		}
		val.SetInt(int64(lit.Num))
	case "bool":
		if lit.Kind != LitBool {
			return fmt.Errorf("%q takes true or false, got %v", path, lit.Value())
		}
		val.SetBool(lit.Bool)
	}
	v.FieldByName("Set").SetBool(true)
	v.FieldByName("Range").Set(reflect.ValueOf(lit.Range))
	return nil
}

// Sweepable reports whether a field of type typ can be set from one
// literal: a string, number, int, bool, or an assumed figure (one number).
func Sweepable(typ string) bool {
	switch typ {
	case "string", "number", "int", "bool", "spread":
		return true
	}
	return false
}

// ParseText reads text, as written on a command line, as a value of the
// scalar field at path: a number for number and int fields, true or false
// for bool fields, and the text itself (or a double-quoted Go string) for
// string fields. The literal carries rng. Only the schema is consulted:
// whether the spec has the blocks path names is SetPath's to say.
func ParseText(path, text string, rng diag.Range) (Literal, error) {
	f, err := schemaField(path)
	if err != nil {
		return Literal{}, err
	}
	lit := Literal{Range: rng}
	switch f.Type {
	case "string":
		lit.Kind, lit.Str = LitString, text
		if strings.HasPrefix(text, `"`) {
			u, err := strconv.Unquote(text)
			if err != nil {
				return Literal{}, fmt.Errorf("%q takes a string; %s is not a well-formed quoted string", path, text)
			}
			lit.Str = u
		}
	case "number", "int", "spread":
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			want := "a number"
			if f.Type == "int" {
				want = "a whole number"
			}
			return Literal{}, fmt.Errorf("%q takes %s, got %q", path, want, text)
		}
		lit.Kind, lit.Num = LitNumber, n
	case "bool":
		switch strings.TrimSpace(text) {
		case "true":
			lit.Kind, lit.Bool = LitBool, true
		case "false":
			lit.Kind, lit.Bool = LitBool, false
		default:
			return Literal{}, fmt.Errorf("%q takes true or false, got %q", path, text)
		}
	default:
		return Literal{}, fmt.Errorf("%q is of type %s; only string, number, int and bool fields can be set by path", path, f.Type)
	}
	return lit, nil
}

// schemaField walks the schema along path (labels of repeated blocks are
// skipped, not looked up) and returns the attribute's field.
func schemaField(path string) (*Field, error) {
	parts := strings.Split(path, ".")
	b := Describe()
	for i := 0; i < len(parts); i++ {
		f := b.Field(parts[i])
		if f == nil {
			return nil, unknownField(parts[i], b, strings.Join(parts[:i], "."))
		}
		switch f.Kind {
		case Attr:
			if i != len(parts)-1 {
				return nil, fmt.Errorf("%q is an attribute, not a block", strings.Join(parts[:i+1], "."))
			}
			return f, nil
		case Block:
			b = f.Block
		case Blocks:
			if i+1 >= len(parts) {
				return nil, fmt.Errorf("%q needs a block label, e.g. %s.NAME.FIELD", path, parts[i])
			}
			b = f.Block
			i++
		}
	}
	return nil, fmt.Errorf("%q names a block, not an attribute", path)
}

// SettablePaths lists the paths SetText can set in s: every attribute but
// a variable's default and a sweep's values, through the single blocks of the schema
// (present or not, as SetPath creates them) and the labelled blocks s
// declares. The sweep and variable blocks are left out: a sweep cannot set
// itself, and variables are read before any path is set. For completion.
func SettablePaths(s *Spec) []string {
	var out []string
	var walk func(v reflect.Value, b *BlockSchema, prefix string)
	walk = func(v reflect.Value, b *BlockSchema, prefix string) {
		for _, f := range b.Fields {
			p := prefix + f.Name
			if prefix == "" && (f.Name == "sweep" || f.Name == "variable" || f.Name == "extends") {
				continue
			}
			var fv reflect.Value
			if v.IsValid() {
				fv = FieldValue(v, f)
			}
			switch f.Kind {
			case Attr:
				if f.Type != "any" && f.Type != "list(literal)" {
					out = append(out, p)
				}
			case Block:
				var inner reflect.Value
				if fv.IsValid() && !fv.IsNil() {
					inner = fv.Elem()
				}
				walk(inner, f.Block, p+".")
			case Blocks:
				if !fv.IsValid() {
					continue
				}
				for j := 0; j < fv.Len(); j++ {
					blk := fv.Index(j).Elem()
					walk(blk, f.Block, p+"."+blk.FieldByName("Name").String()+".")
				}
			}
		}
	}
	var root reflect.Value
	if s != nil {
		root = reflect.ValueOf(s).Elem()
	}
	walk(root, Describe(), "")
	return out
}
