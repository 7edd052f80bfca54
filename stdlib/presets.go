package stdlib

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// The price figures in presets/prices are illustrative list prices for
// estimates, not quotes; a spec that needs exact figures overrides entries in
// its prices block.
//
//go:embed presets
var presetFS embed.FS

// Preset kinds, i.e. the folders of presets/.
const (
	KindLoop   = "loops"
	KindPrices = "prices"
)

var (
	loadOnce sync.Once
	loops    map[string]*spec.Loop
	prices   map[string]*spec.Prices
)

// load decodes every embedded preset once. The files ship with the binary, so
// a bad file is a programmer error and panics (a test loads them all).
func load() {
	loadOnce.Do(func() {
		loops = map[string]*spec.Loop{}
		prices = map[string]*spec.Prices{}
		root := spec.Describe()
		for _, kind := range []string{KindLoop, KindPrices} {
			entries, err := fs.ReadDir(presetFS, "presets/"+kind)
			if err != nil {
				panic(err)
			}
			for _, e := range entries {
				name := strings.TrimSuffix(e.Name(), ".json")
				b, err := presetFS.ReadFile(path.Join("presets", kind, e.Name()))
				if err != nil {
					panic(err)
				}
				switch kind {
				case KindLoop:
					l := &spec.Loop{Name: name}
					mustDecode(b, reflect.ValueOf(l).Elem(), root.Field("loop").Block, kind+"/"+name)
					loops[name] = l
				case KindPrices:
					p := &spec.Prices{}
					mustDecode(b, reflect.ValueOf(p).Elem(), root.Field("prices").Block, kind+"/"+name)
					prices[name] = p
				}
			}
		}
	})
}

// mustDecode fills the block value v from a JSON object whose keys are the
// field names users write (e.g. "proposals_per_state").
func mustDecode(b []byte, v reflect.Value, schema *spec.BlockSchema, what string) {
	if err := DecodeJSON(b, v, schema); err != nil {
		panic(fmt.Sprintf("stdlib: preset %s: %v", what, err))
	}
}

// DecodeJSON fills the block value v (a struct, not a pointer) of schema from
// a JSON object keyed by the names users write. Nested blocks are objects;
// labelled blocks are objects keyed by label.
func DecodeJSON(b []byte, v reflect.Value, schema *spec.BlockSchema) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		raw := obj[k]
		f := schema.Field(k)
		if f == nil {
			msg := fmt.Sprintf("unknown field %q", k)
			if s := diag.DidYouMean(k, schema.FieldNames()); s != "" {
				msg += "; " + s
			}
			return fmt.Errorf("%s", msg)
		}
		fv := spec.FieldValue(v, f)
		switch f.Kind {
		case spec.Attr:
			if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
		case spec.Block:
			nb := spec.NewBlock(f.Block)
			if err := DecodeJSON(raw, nb.Elem(), f.Block); err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
			fv.Set(nb)
		case spec.Blocks:
			var labelled map[string]json.RawMessage
			if err := json.Unmarshal(raw, &labelled); err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
			labels := make([]string, 0, len(labelled))
			for l := range labelled {
				labels = append(labels, l)
			}
			sort.Strings(labels)
			for _, l := range labels {
				nb := spec.NewBlock(f.Block)
				nb.Elem().FieldByName("Name").SetString(l)
				if err := DecodeJSON(labelled[l], nb.Elem(), f.Block); err != nil {
					return fmt.Errorf("%s %q: %v", k, l, err)
				}
				fv.Set(reflect.Append(fv, nb))
			}
		}
	}
	return nil
}

// Presets lists the preset names of a kind (KindLoop or KindPrices), sorted.
func Presets(kind string) []string {
	load()
	var names []string
	switch kind {
	case KindLoop:
		for n := range loops {
			names = append(names, n)
		}
	case KindPrices:
		for n := range prices {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// LoopPreset returns a copy of the loop preset called name.
func LoopPreset(name string) (*spec.Loop, bool) {
	load()
	l, ok := loops[name]
	if !ok {
		return nil, false
	}
	c := *l
	return &c, true
}

// PricePreset returns a copy of the price table called name.
func PricePreset(name string) (*spec.Prices, bool) {
	load()
	p, ok := prices[name]
	if !ok {
		return nil, false
	}
	c := *p
	m := make(map[string]float64, len(p.GPU.V))
	for k, v := range p.GPU.V {
		m[k] = v
	}
	c.GPU.V = m
	return &c, true
}

// ApplyPresets merges presets into s in place: every block whose preset
// attribute is set gets each field it left unset from the preset. The spec's
// own values always win; map-valued fields (price tables) merge entry by
// entry. Values taken from a preset carry the range of the preset attribute,
// so a later diagnostic about them points at the line that chose the preset.
// An unknown preset name is an E_PRESET_UNKNOWN error at that attribute.
func ApplyPresets(s *spec.Spec) diag.Diagnostics {
	if s == nil {
		return nil
	}
	var diags diag.Diagnostics
	root := spec.Describe()
	for i, l := range s.Loops {
		if !l.Preset.Set {
			continue
		}
		p, ok := LoopPreset(l.Preset.V)
		if !ok {
			diags = diags.Append(unknownPreset("loop", KindLoop, l.Preset))
			continue
		}
		p = presetBase(p, root.Field("loop").Block, l.Preset.Range)
		p.Name, p.NameRange = l.Name, l.NameRange // the label is the spec's
		s.Loops[i] = spec.Merge(&spec.Spec{Loops: []*spec.Loop{p}}, &spec.Spec{Loops: []*spec.Loop{l}}).Loops[0]
	}
	if s.Prices != nil && s.Prices.Preset.Set {
		p, ok := PricePreset(s.Prices.Preset.V)
		if !ok {
			diags = diags.Append(unknownPreset("price", KindPrices, s.Prices.Preset))
		} else {
			p = presetBase(p, root.Field("prices").Block, s.Prices.Preset.Range)
			s.Prices = spec.Merge(&spec.Spec{Prices: p}, &spec.Spec{Prices: s.Prices}).Prices
		}
	}
	return diags
}

// presetBase turns a preset into the base a spec's block extends, as
// spec.Merge merges a spec over the one it extends (the spec's values win,
// maps merge entry by entry): a deep copy, so the merged spec shares
// nothing with the preset table, whose every value says it comes from the
// preset line at; its blocks carry no range of their own, and labelled
// blocks stay the spec's (a preset has no way to name them).
func presetBase[T any](p *T, schema *spec.BlockSchema, at diag.Range) *T {
	c := spec.Clone(p)
	stamp(reflect.ValueOf(c).Elem(), schema, at)
	return c
}

// stamp sets the range of every value of block v to at, recursively.
func stamp(v reflect.Value, schema *spec.BlockSchema, at diag.Range) {
	for _, f := range schema.Fields {
		fv := spec.FieldValue(v, f)
		switch f.Kind {
		case spec.Block:
			if fv.IsNil() {
				continue
			}
			if r := fv.Elem().FieldByName("Range"); r.IsValid() {
				r.Set(reflect.Zero(r.Type()))
			}
			stamp(fv.Elem(), f.Block, at)
		case spec.Blocks:
			fv.Set(reflect.Zero(fv.Type()))
		default:
			if r := fv.FieldByName("Range"); fv.Kind() == reflect.Struct && r.IsValid() && fv.FieldByName("Set").Bool() {
				r.Set(reflect.ValueOf(at))
			}
		}
	}
}

// CodePresetUnknown: a preset name that no preset of the kind has.
const CodePresetUnknown = "E_PRESET_UNKNOWN"

// Codes documents the codes of preset resolution.
var Codes = []diag.Code{
	{Code: CodePresetUnknown, Meaning: "a loop or price preset names no preset of the standard library; the message lists them"},
}

func unknownPreset(what, kind string, v spec.Val[string]) *diag.Diagnostic {
	names := Presets(kind)
	d := diag.Errorf(CodePresetUnknown, v.Range, "unknown %s preset %q", what, v.V)
	hint := ""
	if s := diag.DidYouMean(v.V, names); s != "" {
		hint = s + " "
	}
	return d.WithDetail("%sThe %s presets are: %s.", hint, what, strings.Join(names, ", "))
}
