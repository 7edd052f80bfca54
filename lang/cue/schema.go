package cue

import (
	"fmt"
	"sort"
	"strings"

	"cuelang.org/go/cue/format"

	"github.com/assay-lang/assay/lang/spec"
)

// GenerateSchema renders spec.Describe() as CUE definitions: #Spec and one
// definition per block type. stdlib/cue/assay.cue is its output; a test
// fails when that file is stale. Defaults are not part of the schema: the
// compiler applies the documented ones, so a field the user leaves out stays
// unset in the model whichever front end read it.
func GenerateSchema() []byte {
	var b strings.Builder
	b.WriteString("// Code generated from spec.Describe() by lang/cue.GenerateSchema; DO NOT EDIT.\n")
	b.WriteString("// Regenerate with: go test ./lang/cue -run TestSchemaUpToDate -update\n\n")
	b.WriteString("// Package assay holds the schema of Assay experiment specs. Unify a spec\n")
	b.WriteString("// with #Spec to check it with CUE alone, e.g. `cue vet -d '#Spec' assay.cue spec.cue`.\n")
	b.WriteString("package assay\n\n")

	defs := map[string]*spec.BlockSchema{}
	var order []string
	var collect func(*spec.BlockSchema)
	collect = func(bs *spec.BlockSchema) {
		for _, f := range bs.Fields {
			if f.Block == nil {
				continue
			}
			name := defName(f.Block.Name)
			if prev, ok := defs[name]; ok {
				// One Go type may be a block in two places (a source on an
				// environment and on a task): one definition serves both.
				if prev != f.Block && !sameShape(prev, f.Block) {
					panic("cue: two block types are both named " + name)
				}
				continue
			}
			defs[name] = f.Block
			order = append(order, name)
			collect(f.Block)
		}
	}
	root := spec.Describe()
	collect(root)

	writeDef(&b, "#Spec", root.Doc, root, true)
	sort.Strings(order)
	for _, name := range order {
		writeDef(&b, name, defs[name].Doc, defs[name], false)
	}
	b.WriteString("// #Ref is a reference to a labelled block: the string \"kind.name\", e.g.\n")
	b.WriteString("// \"role.rwm\", or a CUE reference to the block itself, e.g. role.rwm.\n")
	b.WriteString("#Ref: =~\"^[a-z_]+\\\\.[^.]+$\" | {...}\n\n")
	b.WriteString("// #Literal is a sweep value.\n")
	b.WriteString("#Literal: number | string | bool\n")
	out, err := format.Source([]byte(b.String()))
	if err != nil {
		panic("cue: generated schema does not parse: " + err.Error())
	}
	return out
}

func writeDef(b *strings.Builder, name, doc string, bs *spec.BlockSchema, top bool) {
	if doc != "" {
		fmt.Fprintf(b, "// %s: %s.\n", name, doc)
	}
	fmt.Fprintf(b, "%s: {\n", name)
	for _, f := range bs.Fields {
		writeComment(b, f)
		switch f.Kind {
		case spec.Block:
			fmt.Fprintf(b, "\t%s?: %s\n", f.Name, defName(f.Block.Name))
		case spec.Blocks:
			fmt.Fprintf(b, "\t%s?: [string]: %s\n", f.Name, defName(f.Block.Name))
		default:
			fmt.Fprintf(b, "\t%s?: %s\n", f.Name, cueType(f))
		}
	}
	if top {
		b.WriteString("\n\t// var holds the values of the declared variables; Assay fills it\n")
		b.WriteString("\t// (defaults, -var-file, -var), and specs refer to var.NAME.\n")
		b.WriteString("\tvar?: {...}\n")
	}
	b.WriteString("}\n\n")
}

func writeComment(b *strings.Builder, f *spec.Field) {
	c := f.Doc
	if f.Unit != "" {
		c += " (" + f.Unit + ")"
	}
	if c != "" {
		fmt.Fprintf(b, "\t// %s\n", c)
	}
}

// cueType maps a Describe() type to a CUE type. Lists also accept a single
// value, as HCL specs do (calibration budget = 100 means 100 every round).
func cueType(f *spec.Field) string {
	if len(f.Enum) > 0 {
		q := make([]string, len(f.Enum))
		for i, e := range f.Enum {
			q[i] = fmt.Sprintf("%q", e)
		}
		return strings.Join(q, " | ")
	}
	return typeExpr(f.Type)
}

func typeExpr(t string) string {
	switch t {
	case "string", "formula":
		return "string"
	case "number":
		return "number"
	case "int":
		return "int"
	case "bool":
		return "bool"
	case "any":
		return "_"
	case "spread":
		return "number | {low: number, expected: number, high: number}"
	case "ref":
		return "#Ref"
	case "list(literal)":
		return "[...#Literal]"
	}
	if inner, ok := strings.CutPrefix(t, "list("); ok {
		e := typeExpr(strings.TrimSuffix(inner, ")"))
		return e + " | [..." + e + "]"
	}
	if inner, ok := strings.CutPrefix(t, "map("); ok {
		return "{[string]: " + typeExpr(strings.TrimSuffix(inner, ")")) + "}"
	}
	panic("cue: no CUE type for " + t)
}

// sameShape reports whether two blocks have the same fields, by name,
// kind and type, so one CUE definition describes both.
func sameShape(a, b *spec.BlockSchema) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i, f := range a.Fields {
		g := b.Fields[i]
		if f.Name != g.Name || f.Kind != g.Kind || f.Type != g.Type || (f.Block != nil && !sameShape(f.Block, g.Block)) {
			return false
		}
	}
	return true
}

// defName turns a block name into a definition name: run_cost -> #RunCost.
func defName(block string) string {
	var b strings.Builder
	b.WriteByte('#')
	for _, p := range strings.Split(block, "_") {
		if p == "" {
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}
