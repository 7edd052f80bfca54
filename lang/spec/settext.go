package spec

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
)

// SetText sets the field at path to text as written on a command line
// (--set PATH=VALUE), typed by the field's schema type:
//
//   - string, formula: the text itself, or a double-quoted Go string;
//   - number, int, bool: a number, a whole number, true or false;
//   - an assumed figure: a number, or {low = .., expected = .., high = ..};
//   - a reference: kind.name, e.g. role.rwm;
//   - list(int), map(number), map(any): a list [8, 16] or a map
//     {H100 = 2.5}, which replaces the field's value as the spec's would.
//
// A path may go on past a map attribute to one entry
// (prices.gpu_hourly.CPU, plugin.tinylm.config.steps; nested maps of
// map(any) too): the entry is set, the map's other entries stay. An entry
// of map(any) takes any value, a bare word as a string. rng is the range
// of text: the field's Range becomes it (for a formula and a quoted string,
// from the first character inside the quotes). It returns the value set,
// as plain data. An error is a *TextError, at offsets of text, or about
// the path.
func SetText(s *Spec, path, text string, rng diag.Range) (any, error) {
	parts := strings.Split(path, ".")
	n, f, err := attrPrefix(parts)
	if err != nil {
		return nil, &TextError{Path: true, Msg: err.Error()}
	}
	v, _, err := resolvePath(s, strings.Join(parts[:n], "."), true)
	if err != nil {
		return nil, &TextError{Path: true, Msg: err.Error()}
	}
	keys := parts[n:]
	if len(keys) > 0 {
		return setEntry(v, f, strings.Join(parts[:n], "."), keys, text, rng)
	}
	x, err := setWhole(v, f, path, text, rng)
	if err != nil {
		return nil, err
	}
	v.FieldByName("Set").SetBool(true)
	return x, nil
}

// attrPrefix returns how many parts of a path name the attribute (through
// blocks and labels), and its field; the parts after it are map keys.
func attrPrefix(parts []string) (int, *Field, error) {
	b := Describe()
	for i := 0; i < len(parts); i++ {
		f := b.Field(parts[i])
		if f == nil {
			return 0, nil, unknownField(parts[i], b, strings.Join(parts[:i], "."))
		}
		switch f.Kind {
		case Attr:
			if i < len(parts)-1 && !strings.HasPrefix(f.Type, "map(") {
				return 0, nil, fmt.Errorf("%q is an attribute of type %s, which has no entries", strings.Join(parts[:i+1], "."), f.Type)
			}
			return i + 1, f, nil
		case Block:
			b = f.Block
		case Blocks:
			if i+1 >= len(parts) {
				return 0, nil, fmt.Errorf("%q needs a block label, e.g. %s.NAME.FIELD", strings.Join(parts, "."), parts[i])
			}
			b = f.Block
			i++
		}
	}
	return 0, nil, fmt.Errorf("%q names a block, not an attribute", strings.Join(parts, "."))
}

// setWhole sets the attribute v (a Val, Ref or Formula) of field f.
func setWhole(v reflect.Value, f *Field, path, text string, rng diag.Range) (any, error) {
	switch f.Type {
	case "string", "formula":
		str, at, err := stringText(path, text, rng)
		if err != nil {
			return nil, err
		}
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, str) {
			return nil, textErr(0, len(text), "%q must be one of %s, got %q", path, strings.Join(f.Enum, ", "), str)
		}
		v.FieldByName("V").SetString(str)
		v.FieldByName("Range").Set(reflect.ValueOf(at))
		return str, nil
	case "ref":
		r, err := ParseRef(strings.TrimSpace(text))
		if err != nil {
			return nil, textErr(0, len(text), "%q takes a reference: %v", path, err)
		}
		r.Range = rng
		v.Set(reflect.ValueOf(r))
		return r.String(), nil
	case "any", "list(literal)":
		return nil, &TextError{Path: true, Msg: fmt.Sprintf("%q is of type %s, which --set does not set", path, f.Type)}
	}
	node, terr := parseText(text)
	if terr != nil {
		return nil, terr
	}
	if f.Type == "spread" {
		sp, err := SpreadFrom(node.plain())
		if err != nil || node.kind == textWord || node.kind == textString {
			return nil, textErr(node.off, node.end, "%q takes a number or {low = .., expected = .., high = ..}, got %s", path, text)
		}
		v.FieldByName("V").Set(reflect.ValueOf(sp))
		v.FieldByName("Range").Set(reflect.ValueOf(rng))
		return sp.Plain(), nil
	}
	val := v.FieldByName("V")
	out := reflect.New(val.Type()).Elem()
	if err := assignNode(out, node, path, f); err != nil {
		return nil, err
	}
	val.Set(out)
	v.FieldByName("Range").Set(reflect.ValueOf(rng))
	return node.plain(), nil
}

// stringText reads a string value: the text itself, or a quoted Go string,
// with the range of its first character.
func stringText(path, text string, rng diag.Range) (string, diag.Range, error) {
	if !strings.HasPrefix(text, `"`) {
		return text, rng, nil
	}
	u, err := strconv.Unquote(text)
	if err != nil {
		return "", rng, textErr(0, len(text), "%q takes a string; %s is not a well-formed quoted string", path, text)
	}
	rng.Start.Column++
	rng.Start.Byte++
	return u, rng, nil
}

// assignNode stores node in out, a value of the Go type the field holds.
func assignNode(out reflect.Value, n *textNode, path string, f *Field) error {
	want := func(what string) error {
		got := n.kind.String()
		if n.kind == textWord {
			got = strconv.Quote(n.str)
		}
		return textErr(n.off, n.end, "%q takes %s, got %s", path, what, got)
	}
	switch out.Kind() {
	case reflect.Interface:
		out.Set(reflect.ValueOf(n.plain()))
	case reflect.String:
		if n.kind != textString && n.kind != textWord {
			return want("a string")
		}
		out.SetString(n.str)
	case reflect.Float64:
		if n.kind != textNumber {
			return want("a number")
		}
		out.SetFloat(n.num)
	case reflect.Int:
		if n.kind != textNumber || n.num != float64(int64(n.num)) {
			if n.kind == textNumber {
				return textErr(n.off, n.end, "%q takes a whole number, got %v", path, n.num)
			}
			return want("a whole number")
		}
		out.SetInt(int64(n.num))
	case reflect.Bool:
		if n.kind != textBool {
			return want("true or false")
		}
		out.SetBool(n.bool)
	case reflect.Slice:
		if n.kind != textList {
			return want("a list such as [8, 16]")
		}
		l := reflect.MakeSlice(out.Type(), len(n.elems), len(n.elems))
		for i, e := range n.elems {
			if err := assignNode(l.Index(i), e, fmt.Sprintf("%s[%d]", path, i), f); err != nil {
				return err
			}
		}
		out.Set(l)
	case reflect.Map:
		if n.kind != textMap {
			return want("a map such as {H100 = 2.5}")
		}
		m := reflect.MakeMapWithSize(out.Type(), len(n.keys))
		for i, k := range n.keys {
			e := reflect.New(out.Type().Elem()).Elem()
			if err := assignNode(e, n.elems[i], path+"."+k, f); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k), e)
		}
		out.Set(m)
	default:
		return want(f.Type)
	}
	return nil
}

// setEntry sets one entry (keys, nested for map(any)) of the map attribute
// v at attr, keeping its other entries.
func setEntry(v reflect.Value, f *Field, attr string, keys []string, text string, rng diag.Range) (any, error) {
	path := attr + "." + strings.Join(keys, ".")
	val := v.FieldByName("V")
	et := val.Type().Elem()
	if len(keys) > 1 && et.Kind() != reflect.Interface {
		return nil, &TextError{Path: true, Msg: fmt.Sprintf("%q is a %s: an entry is %s.KEY, with no further keys", attr, f.Type, attr)}
	}
	for _, k := range keys {
		if k == "" {
			return nil, &TextError{Path: true, Msg: fmt.Sprintf("%q has an empty key", path)}
		}
	}
	node, terr := parseText(text)
	if terr != nil {
		return nil, terr
	}
	e := reflect.New(et).Elem()
	if err := assignNode(e, node, path, f); err != nil {
		return nil, err
	}
	// A copy: the map may be shared with the spec the caller passed.
	m := reflect.MakeMapWithSize(val.Type(), val.Len()+1)
	if !val.IsNil() {
		for _, k := range val.MapKeys() {
			m.SetMapIndex(k, val.MapIndex(k))
		}
	}
	if len(keys) == 1 {
		m.SetMapIndex(reflect.ValueOf(keys[0]), e)
	} else {
		var cur map[string]any
		if x := m.MapIndex(reflect.ValueOf(keys[0])); x.IsValid() && !x.IsNil() {
			inner, ok := x.Interface().(map[string]any)
			if !ok {
				return nil, &TextError{Path: true, Msg: fmt.Sprintf("%s.%s is %v, not a map with entries", attr, keys[0], x.Interface())}
			}
			cur = inner
		}
		nested, err := withEntry(cur, keys[1:], e.Interface(), attr+"."+keys[0])
		if err != nil {
			return nil, err
		}
		m.SetMapIndex(reflect.ValueOf(keys[0]), reflect.ValueOf(nested))
	}
	val.Set(m)
	// The entry is the news: what is said about the map now points at it.
	v.FieldByName("Range").Set(reflect.ValueOf(rng))
	v.FieldByName("Set").SetBool(true)
	return node.plain(), nil
}

// withEntry is a copy of m with x at keys, creating maps on the way.
func withEntry(m map[string]any, keys []string, x any, at string) (map[string]any, error) {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	if len(keys) == 1 {
		out[keys[0]] = x
		return out, nil
	}
	inner, ok := out[keys[0]].(map[string]any)
	if cur, there := out[keys[0]]; there && cur != nil && !ok {
		return nil, &TextError{Path: true, Msg: fmt.Sprintf("%s.%s is %v, not a map with entries", at, keys[0], cur)}
	}
	nested, err := withEntry(inner, keys[1:], x, at+"."+keys[0])
	if err != nil {
		return nil, err
	}
	out[keys[0]] = nested
	return out, nil
}
