package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxMethods is the most methods a runtime type may have: a type that
// grows past it is doing two jobs and should be divided.
const maxMethods = 30

// shared names the service every phase is handed; the types that may not
// be embedded (a phase holds it as a named field, so what it reaches is
// spelled out).
var shared = map[string]bool{"service": true, "runner": true}

// structureProblems reads the Go files of dir (tests excluded) and says
// which structs embed the shared service and which types have more than
// maxMethods methods.
func structureProblems(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var problems []string
	methods := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.StructType:
				for _, fld := range n.Fields.List {
					if len(fld.Names) == 0 && shared[typeName(fld.Type)] {
						problems = append(problems, fset.Position(fld.Pos()).String()+": a struct embeds "+typeName(fld.Type)+"; hold it as a named field")
					}
				}
			case *ast.FuncDecl:
				if n.Recv != nil && len(n.Recv.List) == 1 {
					methods[typeName(n.Recv.List[0].Type)]++
				}
			}
			return true
		})
	}
	for name, n := range methods {
		if n > maxMethods {
			problems = append(problems, "type "+name+" has "+strconv.Itoa(n)+" methods, more than "+strconv.Itoa(maxMethods)+": divide it")
		}
	}
	sort.Strings(problems)
	return problems
}

// typeName is the name of a type expression, pointer, type arguments and
// package qualifier dropped.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	}
	return ""
}

// TestStructure keeps the runtime divided: phases hold the service as a
// named field, never embedded, and no type has more than maxMethods
// methods.
func TestStructure(t *testing.T) {
	for _, p := range structureProblems(t, ".") {
		t.Error(p)
	}
}

// TestStructureCatchesEmbedding plants what the check forbids: a phase
// embedding the service, and a type with one method too many.
func TestStructureCatchesEmbedding(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("package runtime\n\ntype service struct{}\n\ntype phase struct {\n\t*service\n\tn int\n}\n\ntype big struct{}\n")
	for i := range maxMethods + 1 {
		src.WriteString("func (*big) m" + strconv.Itoa(i) + "() {}\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(structureProblems(t, dir), "\n")
	for _, want := range []string{"planted.go:6:2: a struct embeds service", "type big has 31 methods"} {
		if !strings.Contains(got, want) {
			t.Errorf("the planted %q was not caught; problems:\n%s", want, got)
		}
	}
}
