package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// TestLanguageDocIsCurrent fails when docs/language.md was not regenerated
// after a change to the schema, defaults, formulas or functions.
func TestLanguageDocIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "language.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run: go run ./internal/gendocs", err)
	}
	if !bytes.Equal(got, render()) {
		t.Fatalf("docs/language.md is stale; run: go run ./internal/gendocs")
	}
}

// TestPluginDocIsCurrent fails when docs/plugins.md was not regenerated
// after a change to a built-in plugin's config schema.
func TestPluginDocIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "plugins.md"))
	if err != nil {
		t.Fatalf("%v; run: go run ./internal/gendocs", err)
	}
	if !bytes.Equal(got, renderPlugins()) {
		t.Fatalf("docs/plugins.md is stale; run: go run ./internal/gendocs")
	}
}

// TestEverythingDocumented checks that the reference names every block,
// field, enum value, default, formula name and function, and that every
// schema field has a doc string to show.
func TestEverythingDocumented(t *testing.T) {
	doc := string(render())
	var walk func(b *spec.BlockSchema, path string)
	walk = func(b *spec.BlockSchema, path string) {
		for _, f := range b.Fields {
			if f.Doc == "" {
				t.Errorf("field %s has no doc tag", joinPath(path, f.Name))
			}
			if !strings.Contains(doc, "`"+f.Name+"`") {
				t.Errorf("field %s missing from the reference", joinPath(path, f.Name))
			}
			for _, e := range f.Enum {
				if !strings.Contains(doc, `"`+e+`"`) {
					t.Errorf("enum value %q of %s missing", e, f.Name)
				}
			}
			if f.Block != nil {
				walk(f.Block, joinPath(path, f.Name))
			}
		}
	}
	walk(spec.Describe(), "")
	for _, d := range compiler.Defaults {
		if !strings.Contains(doc, "`"+d.Path+"`") {
			t.Errorf("default %s missing", d.Path)
		}
	}
	for _, f := range formula.Functions {
		if !strings.Contains(doc, f.Sig) {
			t.Errorf("formula function %s missing", f.Name)
		}
	}
	for name := range formula.VarDocs {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("formula name %s missing", name)
		}
	}
	for _, f := range stdlib.Functions {
		if !strings.Contains(doc, "`"+f.Name+"(") {
			t.Errorf("function %s missing", f.Name)
		}
	}
	pdoc := string(renderPlugins())
	for _, s := range pluginconfig.All {
		if !strings.Contains(doc, "(plugins.md#builtin"+s.Builtin+")") {
			t.Errorf("the language reference does not link builtin:%s", s.Builtin)
		}
		doc := pdoc
		if !strings.Contains(doc, "## `builtin:"+s.Builtin+"`") {
			t.Errorf("built-in plugin %s has no config section", s.Builtin)
		}
		var walk func(prefix string, fs []*pluginconfig.Field)
		walk = func(prefix string, fs []*pluginconfig.Field) {
			for _, f := range fs {
				if !strings.Contains(doc, "| `"+prefix+f.Name+"` |") {
					t.Errorf("config key %s of builtin:%s missing", prefix+f.Name, s.Builtin)
				}
				walk(prefix+f.Name+".NAME.", f.Fields)
			}
		}
		walk("", s.Fields)
	}
}
