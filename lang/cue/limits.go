package cue

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/scanner"
	"cuelang.org/go/cue/token"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
)

// Codes of the guards that keep a load bounded.
const (
	codeTooLarge   = "E_TOO_LARGE"
	codeTooComplex = "E_TOO_COMPLEX"
)

// tooLarge checks the total size of the sources before they are parsed.
func tooLarge(files []Source, lim budget.Limits) *diag.Diagnostic {
	n := 0
	for _, f := range files {
		n += len(f.Src)
	}
	if n <= lim.MaxSourceBytes || len(files) == 0 {
		return nil
	}
	at := diag.Range{Filename: files[0].Name, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
	return diag.Errorf(codeTooLarge, at, "spec is %d bytes; Assay reads specs of at most %d bytes", n, lim.MaxSourceBytes).
		WithDetail("A spec describes an experiment in a few kilobytes; move generated data (task lists, tables) into a benchmark or environment definition instead.")
}

// labelChain finds a chain of more than max labels (a: b: c: ...) before the
// parser sees it: CUE's parser bounds bracket nesting but not these chains,
// and spends time quadratic in their length.
func labelChain(name string, src []byte, max int) *diag.Diagnostic {
	var sc scanner.Scanner
	sc.Init(token.NewFile(name, -1, len(src)), src, nil, 0)
	run, depth := 0, 0
	var interp []int // paren depth at each open string interpolation
	for {
		pos, tok, lit := sc.Scan()
		switch tok {
		case token.EOF:
			return nil
		case token.COLON:
			run++
			if run > max {
				p := pos.Position()
				at := diag.Pos{Line: p.Line, Column: p.Column, Byte: p.Offset}
				return diag.Errorf(codeTooComplex, diag.Range{Filename: name, Start: at, End: at}, "more than %d labels in a row", max).
					WithDetail("Each label of a: b: c: nests a struct a level deeper; write the struct out with braces, at most %d deep.", max)
			}
			continue
		case token.INTERPOLATION:
			if strings.HasSuffix(lit, "(") {
				interp = append(interp, depth)
			}
		case token.LPAREN:
			depth++
		case token.RPAREN:
			if n := len(interp); n > 0 && interp[n-1] == depth {
				interp = interp[:n-1]
				if rest := sc.ResumeInterpolation(); strings.HasSuffix(rest, "(") {
					interp = append(interp, depth)
				}
			} else if depth > 0 {
				depth--
			}
		case token.IDENT, token.STRING, token.OPTION, token.NOT, token.LBRACK, token.RBRACK:
			continue // parts of a label: name, "name", name?, name!, [pattern]
		}
		run = 0
	}
}

// tooDeep checks the nesting and the operators of a parsed file before CUE
// evaluates it. CUE's parser stops at 10,000 levels of brackets, but not at
// chained labels (a: b: c: ...), and its evaluator recurses along both and
// along operator chains; deep enough input overflows the stack, which ends
// the process however it is called.
func (l *loader) tooDeep(f *ast.File, lim budget.Limits) *diag.Diagnostic {
	depth, ops := 0, 0
	var bad *diag.Diagnostic
	nests := func(n ast.Node) bool {
		switch n.(type) {
		case *ast.StructLit, *ast.ListLit, *ast.ParenExpr, *ast.UnaryExpr, *ast.CallExpr,
			*ast.Interpolation, *ast.Comprehension:
			return true
		}
		return false
	}
	ast.Walk(f, func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		switch n.(type) {
		case *ast.BinaryExpr, *ast.UnaryExpr:
			ops++
			if ops > lim.MaxOperators {
				bad = diag.Errorf(codeTooComplex, l.rangeOf(n.Pos()), "more than %d operators", lim.MaxOperators).
					WithDetail("Expressions this long take CUE far too long to evaluate; write the values out or compute them outside the spec.")
				return false
			}
		}
		if nests(n) {
			depth++
			if depth > lim.MaxDepth {
				bad = diag.Errorf(codeTooComplex, l.rangeOf(n.Pos()), "nesting deeper than %d levels", lim.MaxDepth).
					WithDetail("Structs, lists, labels (a: b: c:), calls, operators and interpolations nest more than %d deep here; flatten the value or split it into hidden fields.", lim.MaxDepth)
				return false
			}
		}
		return true
	}, func(n ast.Node) {
		if nests(n) {
			depth--
		}
	})
	return bad
}

// refused are the builtins whose result can be a product of their inputs'
// sizes, built in one allocation: a few lines can ask for terabytes, and the
// process dies before any ceiling can be checked. A spec is data; it writes
// its strings and lists out or interpolates them.
var refused = map[string]map[string]bool{
	"strings": {"Replace": true, "Repeat": true, "Join": true},
	"list":    {"Repeat": true},
}

// unsafeCalls finds calls of refused builtins, and string or list literals
// multiplied (CUE's "ab" * n), in a parsed file.
func (l *loader) unsafeCalls(f *ast.File) *diag.Diagnostic {
	pkgs := map[string]string{} // local name -> import path
	for im := range f.ImportSpecs() {
		path, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		pkgs[name] = path
	}
	var bad *diag.Diagnostic
	ast.Walk(f, func(n ast.Node) bool {
		if bad != nil {
			return false
		}
		switch x := n.(type) {
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name, _, err := ast.LabelName(sel.Sel)
			if path := pkgs[id.Name]; err == nil && refused[path][name] {
				bad = diag.Errorf(codeTooComplex, l.nodeRange(x), "%s.%s is not available in a spec", path, name).
					WithDetail("It can build a value of any size in one step, which no limit can stop in time. Write the value out, or build strings with interpolation (\"\\(a)-\\(b)\").")
			}
		case *ast.BinaryExpr:
			if x.Op == token.MUL && (repeatable(x.X) || repeatable(x.Y)) {
				bad = diag.Errorf(codeTooComplex, l.nodeRange(x), "multiplying a string or list is not available in a spec").
					WithDetail("It can build a value of any size in one step, which no limit can stop in time. Write the value out.")
			}
		}
		return true
	}, nil)
	return bad
}

// repeatable says whether e is a literal that CUE's * repeats.
func repeatable(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return x.Kind == token.STRING
	case *ast.Interpolation, *ast.ListLit:
		return true
	case *ast.ParenExpr:
		return repeatable(x.X)
	}
	return false
}

// phase names what the evaluation is doing, for a spec that exceeds a limit.
type phase struct{ v atomic.Pointer[string] }

func (p *phase) set(s string) { p.v.Store(&s) }

func (p *phase) get() string {
	if s := p.v.Load(); s != nil {
		return *s
	}
	return "evaluating the spec"
}

// suspects finds the constructs that can multiply work, for the diagnostic
// of a spec that exceeds a limit. It runs before evaluation, which may
// annotate the syntax trees while it runs.
func (l *loader) suspects(files []*ast.File) (first diag.Range, list []string) {
	for _, f := range files {
		ast.Walk(f, func(n ast.Node) bool {
			var name string
			switch x := n.(type) {
			case *ast.Comprehension:
				name = "comprehension"
			case *ast.CallExpr:
				if s, ok := x.Fun.(*ast.SelectorExpr); ok {
					pkg, ok := s.X.(*ast.Ident)
					if sel, _, err := ast.LabelName(s.Sel); ok && err == nil {
						name = "call of " + pkg.Name + "." + sel
					}
				}
				if name == "" {
					name = "call"
				}
			}
			if name != "" {
				r := l.nodeRange(n)
				if len(list) == 0 {
					first = r
				}
				if len(list) < 5 {
					list = append(list, fmt.Sprintf("%s at %s", name, r))
				}
			}
			return true
		}, nil)
	}
	if len(list) == 0 && len(files) > 0 {
		start := diag.Pos{Line: 1, Column: 1}
		first = diag.Range{Filename: files[0].Filename, Start: start, End: start}
	}
	return first, list
}

// exceeded is the diagnostic for a spec that hit an evaluation limit. CUE
// evaluates a package as a whole and cannot say which expression is at
// fault, so it points at the first construct that can multiply work, and
// lists the others.
func exceeded(ex budget.Exceeded, lim budget.Limits, what string, at diag.Range, suspects []string) *diag.Diagnostic {
	how := fmt.Sprintf("did not finish within %s", lim.Timeout.Round(time.Millisecond))
	if ex == budget.Memory {
		how = fmt.Sprintf("needed more than %d MiB of memory", lim.MaxHeapGrowth>>20)
	}
	d := diag.Errorf(codeTooComplex, at, "%s %s", what, how)
	hint := "A spec should evaluate in milliseconds. Look for comprehensions over large lists, list.Range with large counts, or strings that double in size from field to field, and write the values out or make them smaller."
	if len(suspects) > 0 {
		hint += " Candidates: " + strings.Join(suspects, "; ") + "."
	}
	return d.WithDetail("%s", hint)
}
