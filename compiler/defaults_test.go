package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/spec"
)

// TestDefaultsNameFields checks that every path of the defaults table names
// a field of the spec model, so the docs and the language server's hovers
// show each default on a field that exists.
func TestDefaultsNameFields(t *testing.T) {
	for _, d := range Defaults {
		for _, p := range strings.Split(d.Path, ", ") {
			p, _, _ = strings.Cut(p, " (")
			if !fieldAt(spec.Describe(), strings.Split(p, ".")) {
				t.Errorf("default %q: %q is not a field of the spec", d.Path, p)
			}
		}
	}
}

// fieldAt reports whether the schema has a field at path, with "*" for the
// label of a labelled block.
func fieldAt(b *spec.BlockSchema, path []string) bool {
	f := b.Field(path[0])
	switch {
	case f == nil:
		return false
	case len(path) == 1:
		return true
	case f.Block == nil:
		return false
	case f.Kind == spec.Blocks:
		return path[1] == "*" && (len(path) == 2 || fieldAt(f.Block, path[2:]))
	}
	return fieldAt(f.Block, path[1:])
}

// TestLoweredDefaultsListed checks that every lowered default declared in
// defaults.go is in the Defaults table, so none reaches the plan without
// reaching the docs.
func TestLoweredDefaultsListed(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "defaults.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, d := range Defaults {
		listed[d.Path] = true
	}
	n := 0
	ast.Inspect(f, func(x ast.Node) bool {
		lit, ok := x.(*ast.CompositeLit)
		if !ok || !isLoweredType(lit.Type) || len(lit.Elts) == 0 {
			return true
		}
		path, ok := lit.Elts[0].(*ast.BasicLit)
		if !ok || path.Kind != token.STRING {
			t.Errorf("a lowered default whose path is not a string literal: %#v", lit.Elts[0])
			return true
		}
		n++
		if p := strings.Trim(path.Value, `"`); !listed[p] {
			t.Errorf("lowered default %s is not in Defaults: add its doc() to the table", p)
		}
		return true
	})
	if n < 20 {
		t.Fatalf("found %d lowered defaults in defaults.go; is the scan broken?", n)
	}
}

func isLoweredType(e ast.Expr) bool {
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	id, ok := e.(*ast.Ident)
	return ok && (id.Name == "lowered" || id.Name == "named")
}
