package formula

import (
	"fmt"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
)

// Check type-checks the formula against a name table and the type the field
// wants. Unknown names get E_FORMULA_NAME with a "did you mean" hint; type
// errors and wrong argument counts get E_FORMULA_TYPE, each pointing at the
// sub-expression at fault. Check reports every problem it can find.
func (e *Expr) Check(vars map[string]Type, want Type) diag.Diagnostics {
	if e == nil || e.root == nil {
		return nil
	}
	c := checker{e: e, vars: vars}
	t, ok := c.check(e.root)
	if ok && t != want {
		c.diags = c.diags.Append(diag.Errorf("E_FORMULA_TYPE", e.rangeOf(e.root.start, e.root.end), "formula is %s, but a %s is wanted here", t, want).
			WithDetail("%s", wantHint(want)))
	}
	return c.diags
}

func wantHint(want Type) string {
	if want == Bool {
		return "write a condition, e.g. \"uncertainty >= threshold\""
	}
	return "write a number, e.g. \"cond ? 1 : -1\" to turn a condition into one"
}

type checker struct {
	e     *Expr
	vars  map[string]Type
	diags diag.Diagnostics
}

func (c *checker) errorf(code string, n *node, format string, args ...any) *diag.Diagnostic {
	d := diag.Errorf(code, c.e.rangeOf(n.start, n.end), format, args...)
	c.diags = c.diags.Append(d)
	return d
}

// check returns the type of n; ok is false when n has an error already
// reported, so callers do not pile follow-on errors on it.
func (c *checker) check(n *node) (t Type, ok bool) {
	switch n.op {
	case opNum:
		return Number, true
	case opBool:
		return Bool, true
	case opVar:
		return c.checkVar(n)
	case opCall:
		return c.checkCall(n)
	case opNeg:
		return Number, c.expect(n.kids[0], Number, "operand of -")
	case opNot:
		return Bool, c.expect(n.kids[0], Bool, "operand of !")
	case opAdd, opSub, opMul, opDiv:
		return Number, c.operands(n, Number)
	case opLt, opLe, opGt, opGe:
		return Bool, c.operands(n, Number)
	case opEq, opNe:
		return Bool, c.checkEq(n)
	case opAnd, opOr:
		return Bool, c.operands(n, Bool)
	case opCond:
		return c.checkCond(n)
	}
	panic(fmt.Sprintf("formula: check of unknown op %d", n.op))
}

// checkVar checks a name: a variable of the formula's context, or an error
// that says what the formula may use.
func (c *checker) checkVar(n *node) (Type, bool) {
	if t, found := c.vars[n.name]; found {
		return t, true
	}
	if f := lookupFunc(n.name); f != nil {
		c.errorf("E_FORMULA_NAME", n, "%s is a function, not a value", n.name).
			WithDetail("call it: %s", f.Sig)
		return Number, false
	}
	d := c.errorf("E_FORMULA_NAME", n, "unknown name %q", n.name)
	names := SortedNames(c.vars)
	hint := diag.DidYouMean(n.name, names)
	if i := strings.LastIndexByte(n.name, '.'); hint == "" && i >= 0 {
		// "task.scale" -> "scale": names here are flat.
		hint = diag.DidYouMean(n.name[i+1:], names)
	}
	if hint != "" {
		d.WithDetail("%s This formula may use: %s.", hint, strings.Join(names, ", "))
	} else {
		d.WithDetail("This formula may use: %s.", strings.Join(names, ", "))
	}
	return Number, false
}

// operands checks that both operands of a binary operator have type want.
// Both are checked, so an error in each is reported.
func (c *checker) operands(n *node, want Type) bool {
	what := "operand of " + opText[n.op]
	ok1 := c.expect(n.kids[0], want, what)
	ok2 := c.expect(n.kids[1], want, what)
	return ok1 && ok2
}

// checkEq checks that == or != compares two values of one type.
func (c *checker) checkEq(n *node) bool {
	lt, ok1 := c.check(n.kids[0])
	rt, ok2 := c.check(n.kids[1])
	if ok1 && ok2 && lt != rt {
		c.errorf("E_FORMULA_TYPE", n, "%s compares a %s with a %s", opText[n.op], lt, rt).
			WithDetail("both sides of %s must have the same type", opText[n.op])
		return false
	}
	return ok1 && ok2
}

// checkCond checks cond ? a : b: a boolean condition and branches of one
// type, which is the conditional's.
func (c *checker) checkCond(n *node) (Type, bool) {
	okc := c.expect(n.kids[0], Bool, "condition of ?:")
	tt, ok1 := c.check(n.kids[1])
	et, ok2 := c.check(n.kids[2])
	if ok1 && ok2 && tt != et {
		c.errorf("E_FORMULA_TYPE", n.kids[2], "the branches of ?: differ: %s and %s", tt, et).
			WithDetail("both branches must have the same type")
		return tt, false
	}
	return tt, okc && ok1 && ok2
}

// expect checks that n has type want; what names its role for the message.
func (c *checker) expect(n *node, want Type, what string) bool {
	t, ok := c.check(n)
	if ok && t != want {
		c.errorf("E_FORMULA_TYPE", n, "%s must be a %s, not a %s", what, want, t).
			WithDetail("%s", wantHint(want))
		return false
	}
	return ok
}

func (c *checker) checkCall(n *node) (Type, bool) {
	f := n.fn
	if f == nil {
		d := c.errorf("E_FORMULA_NAME", n, "unknown function %q", n.name)
		if n.name == "if" {
			d.WithDetail("write a conditional as cond ? a : b, e.g. \"label_score > 0 ? 1 : -1\"")
		} else if hint := diag.DidYouMean(n.name, funcNames()); hint != "" {
			d.WithDetail("%s Functions are: %s.", hint, strings.Join(funcNames(), ", "))
		} else {
			d.WithDetail("Functions are: %s.", strings.Join(funcNames(), ", "))
		}
		// Still check the arguments for their own errors.
		for _, k := range n.kids {
			c.check(k)
		}
		return Number, false
	}
	ok := true
	if len(n.kids) < f.MinArgs || (f.MaxArgs >= 0 && len(n.kids) > f.MaxArgs) {
		c.errorf("E_FORMULA_TYPE", n, "%s takes %s, got %d", f.Name, arity(f), len(n.kids)).
			WithDetail("call it as %s: %s", f.Sig, f.Doc)
		ok = false
	}
	for i, k := range n.kids {
		if !c.expect(k, Number, fmt.Sprintf("argument %d of %s", i+1, f.Name)) {
			ok = false
		}
	}
	return Number, ok
}

// Vars returns the names the formula uses, in order of first use.
func (e *Expr) Vars() []string {
	if e == nil || e.root == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	var walk func(*node)
	walk = func(n *node) {
		if n.op == opVar && !seen[n.name] {
			seen[n.name] = true
			out = append(out, n.name)
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(e.root)
	return out
}

// Codes documents the formula language's codes.
var Codes = []diag.Code{
	{Code: "E_FORMULA_SYNTAX", Meaning: "a formula does not parse; the message says what was expected"},
	{Code: "E_FORMULA_NAME", Meaning: "a formula uses a name or function that does not exist where it is used"},
	{Code: "E_FORMULA_TYPE", Meaning: "a formula mixes numbers and conditions, or calls a function with the wrong number of arguments"},
}
