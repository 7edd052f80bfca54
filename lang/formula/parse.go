package formula

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/assay-lang/assay/lang/diag"
)

// Limits that keep a hostile or mistaken formula from exhausting the stack:
// every pass over the tree recurses once per nesting level.
const (
	maxLen   = 4096
	maxDepth = 64
)

// The participle grammar, one struct per precedence level, lowest first.
// It is only the concrete syntax; Parse lowers it to node trees.
type pTernary struct {
	Pos  lexer.Position
	Cond *pOr      `parser:"@@"`
	Then *pTernary `parser:"( '?' @@"`
	Else *pTernary `parser:"  ':' @@ )?"`
}

type pOr struct {
	Left *pAnd    `parser:"@@"`
	Rest []*pOrOp `parser:"@@*"`
}

type pOrOp struct {
	Pos   lexer.Position
	Op    string `parser:"@'||'"`
	Right *pAnd  `parser:"@@"`
}

type pAnd struct {
	Left *pCmp     `parser:"@@"`
	Rest []*pAndOp `parser:"@@*"`
}

type pAndOp struct {
	Pos   lexer.Position
	Op    string `parser:"@'&&'"`
	Right *pCmp  `parser:"@@"`
}

// Comparisons do not chain: "a < b < c" is a syntax error.
type pCmp struct {
	Left  *pAdd  `parser:"@@"`
	Op    string `parser:"( @('<=' | '>=' | '==' | '!=' | '<' | '>')"`
	Right *pAdd  `parser:"  @@ )?"`
}

type pAdd struct {
	Left *pMul     `parser:"@@"`
	Rest []*pAddOp `parser:"@@*"`
}

type pAddOp struct {
	Op    string `parser:"@('+' | '-')"`
	Right *pMul  `parser:"@@"`
}

type pMul struct {
	Left *pUnary   `parser:"@@"`
	Rest []*pMulOp `parser:"@@*"`
}

type pMulOp struct {
	Op    string  `parser:"@('*' | '/')"`
	Right *pUnary `parser:"@@"`
}

type pUnary struct {
	Pos     lexer.Position
	Op      string    `parser:"  ( @('-' | '!')"`
	Operand *pUnary   `parser:"    @@ )"`
	Primary *pPrimary `parser:"| @@"`
}

type pPrimary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Number *string   `parser:"  @Number"`
	Ref    *pRef     `parser:"| @@"`
	Sub    *pTernary `parser:"| '(' @@ ')'"`
}

type pRef struct {
	Name string      `parser:"@Ident"`
	Call bool        `parser:"( @'('"`
	Args []*pTernary `parser:"  ( @@ ( ',' @@ )* )? ')' )?"`
}

var formulaLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Number", Pattern: `(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`},
	{Name: "Op", Pattern: `&&|\|\||[<>=!]=|[-+*/()<>!?:,=]`},
	{Name: "Space", Pattern: `[ \t\r\n]+`},
})

// The parser is built on first use, not at init, so commands that never
// read a formula do not pay for it at start-up.
var buildParser = sync.OnceValues(func() (*participle.Parser[pTernary], error) {
	return participle.Build[pTernary](
		participle.Lexer(formulaLexer),
		participle.Elide("Space"),
		participle.UseLookahead(2),
	)
})

// Expr is a parsed formula. It is immutable and safe for concurrent Eval.
type Expr struct {
	src  string
	at   diag.Range
	root *node
}

// Source returns the formula text as written.
func (e *Expr) Source() string { return e.src }

// Parse parses a formula. at is the source range of the attribute holding the
// quoted formula text; diagnostics point inside it. The returned Expr is nil
// when there are errors.
func Parse(src string, at diag.Range) (*Expr, diag.Diagnostics) {
	e := &Expr{src: src, at: at}
	if strings.TrimSpace(src) == "" {
		return nil, diag.Diagnostics{diag.Errorf("E_FORMULA_SYNTAX", e.rangeOf(0, len(src)), "empty formula").
			WithDetail("write an expression such as \"clip(predicted_gain / scale, -c, c)\"")}
	}
	if len(src) > maxLen {
		return nil, diag.Diagnostics{diag.Errorf("E_FORMULA_SYNTAX", e.rangeOf(0, 1), "formula is too long (%d bytes; at most %d)", len(src), maxLen).
			WithDetail("split the computation or simplify it")}
	}
	if off, ok := tooDeep(src); !ok {
		return nil, diag.Diagnostics{diag.Errorf("E_FORMULA_SYNTAX", e.rangeOf(off, off+1), "formula nests too deeply (more than %d levels)", maxDepth).
			WithDetail("remove redundant parentheses or signs")}
	}
	p, err := buildParser()
	if err != nil {
		panic(fmt.Sprintf("formula grammar: %v", err)) // programmer error
	}
	tree, err := p.ParseString("", src)
	if err != nil {
		return nil, diag.Diagnostics{e.syntaxDiag(err)}
	}
	var diags diag.Diagnostics
	e.root = e.lowerTernary(tree, &diags)
	if diags.HasErrors() {
		return nil, diags
	}
	return e, diags
}

// MustParse parses a formula that is known to be valid (defaults, tests).
func MustParse(src string) *Expr {
	e, diags := Parse(src, diag.Range{})
	if diags.HasErrors() {
		panic(diags.Error())
	}
	return e
}

// tooDeep reports the offset at which nesting of parentheses or prefix
// operators passes maxDepth.
func tooDeep(src string) (int, bool) {
	depth, run := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
			run = 0
		case ')':
			depth--
			run = 0
		case '-', '!', '?':
			// A chain of prefix operators or conditionals nests as deeply as parentheses.
			run++
		case ' ', '\t', '\r', '\n':
		default:
			run = 0
		}
		if depth+run > maxDepth {
			return i, false
		}
	}
	return 0, true
}

func (e *Expr) syntaxDiag(err error) *diag.Diagnostic {
	var perr participle.Error
	msg := err.Error()
	off := len(e.src)
	if errors.As(err, &perr) {
		msg = perr.Message()
		off = perr.Position().Offset
	}
	msg = strings.ReplaceAll(msg, `unexpected token "<EOF>"`, "unexpected end of formula")
	d := diag.Errorf("E_FORMULA_SYNTAX", e.rangeOf(off, off+1), "invalid formula: %s", msg)
	switch {
	case off < len(e.src) && e.src[off] == '=' && !strings.HasPrefix(e.src[off:], "=="):
		d.WithDetail("compare with ==, not =")
	case strings.Contains(msg, "invalid input text"):
		d.WithDetail("formulas use numbers, names, ( ), + - * /, comparisons, && || !, ?: and function calls")
	default:
		d.WithDetail("formulas look like \"clip(predicted_gain / scale, -c, c) + diversity_bonus\" or \"uncertainty >= threshold\"")
	}
	return d
}

// rangeOf maps byte offsets inside the formula to a source range. A
// single-line formula sits inside quotes, so column = attribute column + 1 +
// offset; for a multi-line formula the line is shifted and the column is the
// column inside the formula.
func (e *Expr) rangeOf(start, end int) diag.Range {
	if !e.at.Valid() {
		return diag.Range{Filename: e.at.Filename}
	}
	return diag.Range{Filename: e.at.Filename, Start: e.posOf(start), End: e.posOf(end)}
}

func (e *Expr) posOf(off int) diag.Pos {
	off = max(0, min(off, len(e.src)))
	line := strings.Count(e.src[:off], "\n")
	if line == 0 {
		return diag.Pos{Line: e.at.Start.Line, Column: e.at.Start.Column + 1 + off, Byte: e.at.Start.Byte + 1 + off}
	}
	col := off - strings.LastIndexByte(e.src[:off], '\n')
	return diag.Pos{Line: e.at.Start.Line + line, Column: col, Byte: e.at.Start.Byte + 1 + off}
}

// Lowering from the concrete syntax to nodes. Each node records the byte
// span of its source so Check can point at sub-expressions.

func (e *Expr) lowerTernary(t *pTernary, diags *diag.Diagnostics) *node {
	cond := e.lowerOr(t.Cond, diags)
	if t.Then == nil {
		return cond
	}
	then := e.lowerTernary(t.Then, diags)
	els := e.lowerTernary(t.Else, diags)
	return &node{op: opCond, kids: []*node{cond, then, els}, start: cond.start, end: els.end}
}

func (e *Expr) lowerOr(t *pOr, diags *diag.Diagnostics) *node {
	n := e.lowerAnd(t.Left, diags)
	for _, r := range t.Rest {
		right := e.lowerAnd(r.Right, diags)
		n = &node{op: opOr, kids: []*node{n, right}, start: n.start, end: right.end}
	}
	return n
}

func (e *Expr) lowerAnd(t *pAnd, diags *diag.Diagnostics) *node {
	n := e.lowerCmp(t.Left, diags)
	for _, r := range t.Rest {
		right := e.lowerCmp(r.Right, diags)
		n = &node{op: opAnd, kids: []*node{n, right}, start: n.start, end: right.end}
	}
	return n
}

var cmpOps = map[string]opcode{"<": opLt, "<=": opLe, ">": opGt, ">=": opGe, "==": opEq, "!=": opNe}

func (e *Expr) lowerCmp(t *pCmp, diags *diag.Diagnostics) *node {
	n := e.lowerAdd(t.Left, diags)
	if t.Right == nil {
		return n
	}
	right := e.lowerAdd(t.Right, diags)
	return &node{op: cmpOps[t.Op], kids: []*node{n, right}, start: n.start, end: right.end}
}

func (e *Expr) lowerAdd(t *pAdd, diags *diag.Diagnostics) *node {
	n := e.lowerMul(t.Left, diags)
	for _, r := range t.Rest {
		right := e.lowerMul(r.Right, diags)
		op := opAdd
		if r.Op == "-" {
			op = opSub
		}
		n = &node{op: op, kids: []*node{n, right}, start: n.start, end: right.end}
	}
	return n
}

func (e *Expr) lowerMul(t *pMul, diags *diag.Diagnostics) *node {
	n := e.lowerUnary(t.Left, diags)
	for _, r := range t.Rest {
		right := e.lowerUnary(r.Right, diags)
		op := opMul
		if r.Op == "/" {
			op = opDiv
		}
		n = &node{op: op, kids: []*node{n, right}, start: n.start, end: right.end}
	}
	return n
}

func (e *Expr) lowerUnary(t *pUnary, diags *diag.Diagnostics) *node {
	if t.Primary != nil {
		return e.lowerPrimary(t.Primary, diags)
	}
	x := e.lowerUnary(t.Operand, diags)
	op := opNeg
	if t.Op == "!" {
		op = opNot
	}
	return &node{op: op, kids: []*node{x}, start: t.Pos.Offset, end: x.end}
}

func (e *Expr) lowerPrimary(t *pPrimary, diags *diag.Diagnostics) *node {
	start, end := t.Pos.Offset, t.EndPos.Offset
	switch {
	case t.Number != nil:
		v, err := strconv.ParseFloat(*t.Number, 64)
		if err != nil || math.IsInf(v, 0) {
			*diags = diags.Append(diag.Errorf("E_FORMULA_SYNTAX", e.rangeOf(start, end), "number %s is out of range", *t.Number).
				WithDetail("numbers must fit a 64-bit float (at most about 1.8e308)"))
		}
		return &node{op: opNum, num: v, start: start, end: end}
	case t.Ref != nil && t.Ref.Call:
		n := &node{op: opCall, name: t.Ref.Name, start: start, end: end}
		for _, a := range t.Ref.Args {
			n.kids = append(n.kids, e.lowerTernary(a, diags))
		}
		n.fn = lookupFunc(t.Ref.Name)
		return n
	case t.Ref != nil && (t.Ref.Name == "true" || t.Ref.Name == "false"):
		n := &node{op: opBool, start: start, end: end}
		if t.Ref.Name == "true" {
			n.num = 1
		}
		return n
	case t.Ref != nil:
		return &node{op: opVar, name: t.Ref.Name, start: start, end: end}
	default:
		n := e.lowerTernary(t.Sub, diags)
		// Widen the span over the parentheses so a diagnostic covers them;
		// the parentheses themselves leave no node (String re-derives them).
		n.start, n.end = start, end
		return n
	}
}
