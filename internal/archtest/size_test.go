package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The sizes past which a file or a function is doing two jobs and should
// be divided. Complexity is counted as gocyclo counts it, so
// `gocyclo -over 30 .` and TestSizes agree.
const (
	maxComplexity = 30
	maxFuncLines  = 120
	maxFileLines  = 800
)

// helpFields are the fields of a command's help text (cobra.Command's
// Long and Example): their lines are prose, not logic, so a command's
// constructor does not count them towards its length.
var helpFields = map[string]bool{"Long": true, "Example": true}

// complexityAllowed lets a function stay over maxComplexity, up to the
// figure given, while it is being divided elsewhere; it must not grow.
// Remove an entry once its function is within the limit.
var complexityAllowed = map[string]int{
	// Only TestPlantedSizesFail's planted file, which shows an entry at
	// work; no file of the repository has this path.
	"p/legacy.go:legacy": 34,
}

// complexity is fn's cyclomatic complexity by gocyclo's rules: 1, plus 1
// for each if, for, range, non-default case of a switch or select, && and
// ||, in fn and the function literals inside it.
func complexity(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// funcLines is fn's length in lines, from `func` to its closing brace,
// less the lines of command help text inside it.
func funcLines(fset *token.FileSet, fn *ast.FuncDecl) int {
	n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
	ast.Inspect(fn, func(x ast.Node) bool {
		kv, ok := x.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		if k, ok := kv.Key.(*ast.Ident); ok && helpFields[k.Name] {
			n -= fset.Position(kv.Value.End()).Line - fset.Position(kv.Value.Pos()).Line
		}
		return true
	})
	return n
}

// sizeProblems says which functions of the file rel (repo-relative, for
// messages and complexityAllowed) are too complex or too long, and whether
// the file is too long. A generated file has none.
func sizeProblems(fset *token.FileSet, rel string, f *ast.File) []string {
	if ast.IsGenerated(f) {
		return nil
	}
	var problems []string
	if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
		problems = append(problems, fmt.Sprintf("%s: %d lines, more than %d: divide the file", rel, n, maxFileLines))
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		at := fmt.Sprintf("%s:%d: %s", rel, fset.Position(fn.Pos()).Line, funcName(fn))
		limit := maxComplexity
		if allowed, ok := complexityAllowed[rel+":"+fn.Name.Name]; ok {
			limit = allowed
		}
		if c := complexity(fn); c > limit {
			problems = append(problems, fmt.Sprintf("%s has cyclomatic complexity %d, more than %d: divide it", at, c, limit))
		}
		if n := funcLines(fset, fn); n > maxFuncLines {
			problems = append(problems, fmt.Sprintf("%s is %d lines long, more than %d: divide it", at, n, maxFuncLines))
		}
	}
	return problems
}

// funcName is a function's name as gocyclo prints it: (*T).M for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	for {
		switch x := t.(type) {
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	name := "?"
	if id, ok := t.(*ast.Ident); ok {
		name = id.Name
	}
	return "(" + star + name + ")." + fn.Name.Name
}

// TestSizes reads every Go file of the repository, tests included, and
// fails on a function over maxComplexity or maxFuncLines, or a file over
// maxFileLines; generated files are exempt.
func TestSizes(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, p := range sizeProblems(fset, filepath.ToSlash(rel), f) {
			t.Error(p)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files read; is the walk broken?", files)
	}
}

// plantedSizes parses src as the file rel and returns its size problems.
func plantedSizes(t *testing.T, rel, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v\n%s", rel, err, src)
	}
	return sizeProblems(fset, rel, f)
}

// branchy is a function of complexity 1+n: n if statements.
func branchy(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(x int) int {\n", name)
	for i := range n {
		fmt.Fprintf(&b, "\tif x == %d {\n\t\treturn %d\n\t}\n", i, i)
	}
	b.WriteString("\treturn -1\n}\n")
	return b.String()
}

// long is a function of n lines whose body is statements, or (help) a
// command constructor whose Long help text fills it.
func long(name string, n int, help bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s() any {\n", name)
	if help {
		b.WriteString("\treturn &cmd{Use: \"x\", Long: `first line\n")
		for i := 0; i < n-4; i++ {
			b.WriteString("more help\n")
		}
		b.WriteString("last`}\n")
	} else {
		b.WriteString("\tx := 0\n")
		for i := 0; i < n-4; i++ {
			b.WriteString("\tx++\n")
		}
		b.WriteString("\treturn x\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// TestComplexityCounts checks the counter against a hand-worked function:
// 1, +1 for each if, for, range, non-default case and comm clause, && and
// ||, the function literal's if included; else, default and plain
// operators add nothing.
func TestComplexityCounts(t *testing.T) {
	src := `package p

func f(xs []int, ch chan int) int {
	n := 0
	if len(xs) > 0 && xs[0] > 0 || n == 1 { // 1 + 2
		n++
	} else {
		n--
	}
	for i := 0; i < 3; i++ { // 1
		n += i
	}
	for _, x := range xs { // 1
		switch x {
		case 1, 2: // 1
			n++
		case 3: // 1
		default:
		}
	}
	select {
	case v := <-ch: // 1
		n += v
	default:
	}
	g := func() bool {
		if n > 2 { // 1
			return true
		}
		return false
	}
	_ = g
	return n + 1
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c := complexity(f.Decls[0].(*ast.FuncDecl)); c != 10 {
		t.Errorf("complexity %d, want 10", c)
	}
}

// generated marks a planted file as generated.
const generated = "// Code generated by hand. DO NOT EDIT.\n\n"

// TestPlantedSizesFail plants functions and files just over and at each
// limit, and checks that exactly those over it fail.
func TestPlantedSizesFail(t *testing.T) {
	cases := []struct {
		name, rel, src string
		want           []string // substrings, one per expected problem
	}{
		{"complexity at the limit", "p/a.go", branchy("ok", maxComplexity-1), nil},
		{"complexity over the limit", "p/a.go", branchy("tangled", maxComplexity), []string{"p/a.go:3: tangled has cyclomatic complexity 31, more than 30"}},
		{"a method over the limit", "p/a.go", "type T struct{}\n\n" + strings.Replace(branchy("m", maxComplexity), "func m", "func (t *T) m", 1), []string{"(*T).m has cyclomatic complexity 31"}},
		{"length at the limit", "p/a.go", long("ok", maxFuncLines, false), nil},
		{"length over the limit", "p/a.go", long("sprawl", maxFuncLines+1, false), []string{"p/a.go:3: sprawl is 121 lines long, more than 120"}},
		{"help text does not count", "p/a.go", "type cmd struct{ Use, Long string }\n\n" + long("newCmd", 4*maxFuncLines, true), nil},
		{"other text does", "p/a.go", "type cmd struct{ Use, Short string }\n\n" + strings.Replace(long("newCmd", 4*maxFuncLines, true), "Long:", "Short:", 1), []string{"newCmd is 480 lines long"}},
		{"a file at the limit", "p/a.go", strings.Repeat("\n", maxFileLines-2), nil},
		{"a file over the limit", "p/a.go", strings.Repeat("\n", maxFileLines-1), []string{"p/a.go: 801 lines, more than 800"}},
		{"a generated file is exempt", "p/a.go", generated + branchy("gen", 2*maxComplexity) + long("gen2", 2*maxFuncLines, false), nil},
		{"an allowed function at its figure", "p/legacy.go", branchy("legacy", 33), nil},
		{"an allowed function may not grow", "p/legacy.go", branchy("legacy", 34), []string{"legacy has cyclomatic complexity 35, more than 34"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A generated file says so above its package clause.
			head, src := "", c.src
			if rest, ok := strings.CutPrefix(c.src, generated); ok {
				head, src = generated, rest
			}
			got := plantedSizes(t, c.rel, head+"package p\n\n"+src)
			if len(got) != len(c.want) {
				t.Fatalf("problems %q, want %d matching %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q, want it to say %q", got[i], w)
				}
			}
		})
	}
}
