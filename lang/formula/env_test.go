package formula

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestTablesUnchanged pins the name tables read from the environment
// structs: a field added, renamed or dropped changes what specs may write,
// and must change this list (and the docs) deliberately.
func TestTablesUnchanged(t *testing.T) {
	want := map[string]string{
		"RewardVars":     "baseline c diversity_bonus gain label_score predicted_gain real_gain scale",
		"InfeasibleVars": "c delta min_valid",
		"RepeatVars":     "c delta min_valid",
		"RouteVars":      "agreement improve_share mean_rank threshold uncertainty votes",
	}
	for _, tb := range Tables() {
		if got := strings.Join(SortedNames(tb.Vars), " "); got != want[tb.Name] {
			t.Errorf("%s = %s, want %s", tb.Name, got, want[tb.Name])
		}
		for n, ty := range tb.Vars {
			if ty != Number {
				t.Errorf("%s.%s is %s, want number", tb.Name, n, ty)
			}
			if VarDocs[n] == "" {
				t.Errorf("%s.%s has no VarDocs entry", tb.Name, n)
			}
		}
	}
}

// TestEnvBindsItsTable: each environment binds exactly the names of its
// table, each to the value of its field, so a formula the compiler checked
// finds every name it reads and the runtime binds nothing else.
func TestEnvBindsItsTable(t *testing.T) {
	for _, c := range []struct {
		table map[string]Type
		env   any
	}{
		{RewardVars, RewardEnv{}},
		{InfeasibleVars, InfeasibleEnv{}},
		{RepeatVars, RepeatEnv{}},
		{RouteVars, RouteEnv{}},
	} {
		// Give every field a distinct value, then read it back by name.
		v := reflect.New(reflect.TypeOf(c.env)).Elem()
		byName := map[string]float64{}
		for i := range v.NumField() {
			v.Field(i).SetFloat(float64(i + 1))
			byName[v.Type().Field(i).Tag.Get("formula")] = float64(i + 1)
		}
		env := v.MethodByName("Env").Call(nil)[0].Interface().(Env)
		if len(env) != len(c.table) {
			t.Errorf("%T binds %d names, its table has %d", c.env, len(env), len(c.table))
		}
		for n := range c.table {
			got, ok := env[n]
			if !ok || got.T != Number || got.Num != byName[n] {
				t.Errorf("%T binds %s = %v (bound %v), want %g", c.env, n, got, ok, byName[n])
			}
		}
	}
}

// TestRuntimeBindsThroughEnvs: the runtime builds no formula.Env by hand
// (string keys the checker never saw); it fills the environment structs.
func TestRuntimeBindsThroughEnvs(t *testing.T) {
	root := filepath.Join("..", "..", "runtime")
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		name := formulaImport(f)
		if name == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Env" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
					bad = append(bad, fset.Position(sel.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, at := range bad {
		t.Errorf("%s: the runtime names formula.Env; bind through RewardEnv, InfeasibleEnv, RepeatEnv or RouteEnv", at)
	}
}

// formulaImport is the name a file imports this package under, or "".
func formulaImport(f *ast.File) string {
	for _, im := range f.Imports {
		if strings.Trim(im.Path.Value, `"`) != "github.com/assay-lang/assay/lang/formula" {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
		return "formula"
	}
	return ""
}
