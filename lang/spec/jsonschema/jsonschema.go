package jsonschema

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/assay-lang/assay/lang/spec"
)

// Draft is the JSON Schema dialect of Generate's output.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Schema is a JSON Schema document as plain data.
type Schema = map[string]any

// Build returns the JSON Schema of the spec model.
func Build() Schema {
	defs := Schema{}
	root := block(spec.Describe(), defs)
	root["$schema"] = Draft
	root["title"] = "Assay experiment spec"
	root["$defs"] = defs
	return root
}

// Generate returns Build as indented JSON.
func Generate() []byte {
	b, err := json.MarshalIndent(Build(), "", "  ")
	if err != nil {
		panic("jsonschema: " + err.Error()) // plain data always marshals
	}
	return append(b, '\n')
}

func block(bs *spec.BlockSchema, defs Schema) Schema {
	props := Schema{}
	for _, f := range bs.Fields {
		var p Schema
		switch f.Kind {
		case spec.Block:
			p = Schema{"$ref": "#/$defs/" + def(f.Block, defs)}
		case spec.Blocks:
			p = Schema{"type": "object", "additionalProperties": Schema{"$ref": "#/$defs/" + def(f.Block, defs)}}
		default:
			p = attr(f)
		}
		if d := describe(f); d != "" {
			p["description"] = d
		}
		props[f.Name] = p
	}
	out := Schema{"type": "object", "additionalProperties": false, "properties": props}
	if bs.Doc != "" {
		out["description"] = bs.Doc
	}
	return out
}

// def registers a block type under a CamelCase name and returns the name.
func def(bs *spec.BlockSchema, defs Schema) string {
	var b strings.Builder
	for _, p := range strings.Split(bs.Name, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	name := b.String()
	if _, ok := defs[name]; !ok {
		defs[name] = nil // reserve first: blocks may nest
		defs[name] = block(bs, defs)
	}
	return name
}

func describe(f *spec.Field) string {
	if f.Unit != "" {
		return f.Doc + " (" + f.Unit + ")"
	}
	return f.Doc
}

func attr(f *spec.Field) Schema {
	if len(f.Enum) > 0 {
		e := append([]string(nil), f.Enum...)
		sort.Strings(e)
		l := make([]any, len(e))
		for i, x := range e {
			l[i] = x
		}
		return Schema{"type": "string", "enum": l}
	}
	return typ(f.Type)
}

func typ(t string) Schema {
	switch t {
	case "string", "formula":
		return Schema{"type": "string"}
	case "number":
		return Schema{"type": "number"}
	case "int":
		return Schema{"type": "integer"}
	case "bool":
		return Schema{"type": "boolean"}
	case "any":
		return Schema{}
	case "spread":
		n := Schema{"type": "number"}
		return Schema{"anyOf": []any{n, Schema{"type": "object", "required": []any{"low", "expected", "high"}, "additionalProperties": false,
			"properties": Schema{"low": n, "expected": n, "high": n}}}}
	case "ref":
		return Schema{"type": "string", "pattern": `^[a-z_]+\.[^.]+$`}
	case "list(literal)":
		return Schema{"type": "array", "items": Schema{"type": []any{"number", "string", "boolean"}}}
	}
	if inner, ok := strings.CutPrefix(t, "list("); ok {
		e := typ(strings.TrimSuffix(inner, ")"))
		// One value stands for a list of that value, as both front ends read it.
		return Schema{"anyOf": []any{e, Schema{"type": "array", "items": typ(strings.TrimSuffix(inner, ")"))}}}
	}
	if inner, ok := strings.CutPrefix(t, "map("); ok {
		return Schema{"type": "object", "additionalProperties": typ(strings.TrimSuffix(inner, ")"))}
	}
	panic("jsonschema: no JSON type for " + t)
}
