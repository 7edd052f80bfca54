package formula

import (
	"fmt"
	"math"
)

type opcode uint8

const (
	opNum  opcode = iota
	opBool        // num is 1 for true, 0 for false
	opVar
	opCall
	opNeg
	opNot
	opAdd
	opSub
	opMul
	opDiv
	opLt
	opLe
	opGt
	opGe
	opEq
	opNe
	opAnd
	opOr
	opCond
)

// node is one operation of a lowered formula. start and end are byte
// offsets of its source text inside the formula.
type node struct {
	op         opcode
	num        float64
	name       string
	fn         *Func
	kids       []*node
	start, end int
}

// Func is a built-in function.
type Func struct {
	Name string
	// Sig is the signature as documented, e.g. "clip(x, lo, hi)".
	Sig string
	Doc string
	// MinArgs and MaxArgs bound the argument count; MaxArgs < 0 means any.
	MinArgs, MaxArgs int
}

// Functions are the built-in functions, in documentation order. All take
// and return numbers.
var Functions = []*Func{
	{Name: "clip", Sig: "clip(x, lo, hi)", Doc: "x limited to [lo, hi] (lo when x < lo, hi when x > hi)", MinArgs: 3, MaxArgs: 3},
	{Name: "min", Sig: "min(x, y, ...)", Doc: "the smallest argument (two or more)", MinArgs: 2, MaxArgs: -1},
	{Name: "max", Sig: "max(x, y, ...)", Doc: "the largest argument (two or more)", MinArgs: 2, MaxArgs: -1},
	{Name: "abs", Sig: "abs(x)", Doc: "absolute value of x", MinArgs: 1, MaxArgs: 1},
	{Name: "log", Sig: "log(x)", Doc: "natural logarithm of x; x must be positive", MinArgs: 1, MaxArgs: 1},
	{Name: "exp", Sig: "exp(x)", Doc: "e raised to x", MinArgs: 1, MaxArgs: 1},
	{Name: "sqrt", Sig: "sqrt(x)", Doc: "square root of x; x must not be negative", MinArgs: 1, MaxArgs: 1},
	{Name: "pow", Sig: "pow(x, y)", Doc: "x raised to y", MinArgs: 2, MaxArgs: 2},
}

func lookupFunc(name string) *Func {
	for _, f := range Functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func funcNames() []string {
	out := make([]string, len(Functions))
	for i, f := range Functions {
		out[i] = f.Name
	}
	return out
}

// EvalError is a failure while evaluating: an unbound name, a value of the
// wrong type, or a result that is not a finite number.
type EvalError struct {
	// Expr is the source text of the failing sub-expression.
	Expr string
	Msg  string
}

func (e *EvalError) Error() string { return fmt.Sprintf("formula: %s: %s", e.Expr, e.Msg) }

// Eval evaluates the formula with names bound by env. Every name it uses must
// be bound with the type Check assumed. A result (or intermediate number)
// that is NaN or infinite is an error: a reward must be a finite number.
// Eval does not allocate unless it fails.
func (e *Expr) Eval(env Env) (Value, error) {
	if e == nil || e.root == nil {
		return Value{}, &EvalError{Msg: "empty formula"}
	}
	return e.eval(e.root, env)
}

func (e *Expr) fail(n *node, format string, args ...any) error {
	return &EvalError{Expr: e.src[n.start:n.end], Msg: fmt.Sprintf(format, args...)}
}

func (e *Expr) num(n *node, env Env) (float64, error) {
	v, err := e.eval(n, env)
	if err != nil {
		return 0, err
	}
	if v.T != Number {
		return 0, e.fail(n, "is %s, want number", v.T)
	}
	return v.Num, nil
}

func (e *Expr) boolean(n *node, env Env) (bool, error) {
	v, err := e.eval(n, env)
	if err != nil {
		return false, err
	}
	if v.T != Bool {
		return false, e.fail(n, "is %s, want bool", v.T)
	}
	return v.Bool, nil
}

func (e *Expr) finite(n *node, x float64) (Value, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Value{}, e.fail(n, "evaluates to %v, not a finite number", x)
	}
	return Value{T: Number, Num: x}, nil
}

func (e *Expr) eval(n *node, env Env) (Value, error) {
	switch n.op {
	case opNum:
		return Value{T: Number, Num: n.num}, nil
	case opBool:
		return Value{T: Bool, Bool: n.num != 0}, nil
	case opVar:
		v, ok := env[n.name]
		if !ok {
			return Value{}, e.fail(n, "name %q is not bound", n.name)
		}
		return v, nil
	case opNeg:
		x, err := e.num(n.kids[0], env)
		if err != nil {
			return Value{}, err
		}
		return Value{T: Number, Num: -x}, nil
	case opNot:
		b, err := e.boolean(n.kids[0], env)
		if err != nil {
			return Value{}, err
		}
		return Value{T: Bool, Bool: !b}, nil
	case opAnd, opOr:
		return e.logical(n, env)
	case opCond:
		c, err := e.boolean(n.kids[0], env)
		if err != nil {
			return Value{}, err
		}
		if c {
			return e.eval(n.kids[1], env)
		}
		return e.eval(n.kids[2], env)
	case opEq, opNe:
		return e.equality(n, env)
	case opCall:
		return e.call(n, env)
	}
	return e.binary(n, env)
}

// logical evaluates && and ||, short-circuiting so "x > 0 && log(x) < 1"
// is safe.
func (e *Expr) logical(n *node, env Env) (Value, error) {
	l, err := e.boolean(n.kids[0], env)
	if err != nil {
		return Value{}, err
	}
	if (n.op == opAnd && !l) || (n.op == opOr && l) {
		return Value{T: Bool, Bool: l}, nil
	}
	r, err := e.boolean(n.kids[1], env)
	if err != nil {
		return Value{}, err
	}
	return Value{T: Bool, Bool: r}, nil
}

// equality evaluates == and != over two values of the same type.
func (e *Expr) equality(n *node, env Env) (Value, error) {
	l, err := e.eval(n.kids[0], env)
	if err != nil {
		return Value{}, err
	}
	r, err := e.eval(n.kids[1], env)
	if err != nil {
		return Value{}, err
	}
	if l.T != r.T {
		return Value{}, e.fail(n, "compares %s with %s", l.T, r.T)
	}
	eq := l.Bool == r.Bool
	if l.T == Number {
		eq = l.Num == r.Num
	}
	return Value{T: Bool, Bool: eq == (n.op == opEq)}, nil
}

// binary evaluates the numeric operators and ordered comparisons.
func (e *Expr) binary(n *node, env Env) (Value, error) {
	l, err := e.num(n.kids[0], env)
	if err != nil {
		return Value{}, err
	}
	r, err := e.num(n.kids[1], env)
	if err != nil {
		return Value{}, err
	}
	switch n.op {
	case opAdd:
		return e.finite(n, l+r)
	case opSub:
		return e.finite(n, l-r)
	case opMul:
		return e.finite(n, l*r)
	case opDiv:
		if r == 0 {
			return Value{}, e.fail(n, "division by zero")
		}
		return e.finite(n, l/r)
	case opLt:
		return Value{T: Bool, Bool: l < r}, nil
	case opLe:
		return Value{T: Bool, Bool: l <= r}, nil
	case opGt:
		return Value{T: Bool, Bool: l > r}, nil
	case opGe:
		return Value{T: Bool, Bool: l >= r}, nil
	}
	return Value{}, e.fail(n, "unknown operation %d", n.op)
}

func (e *Expr) call(n *node, env Env) (Value, error) {
	f := n.fn
	if f == nil {
		return Value{}, e.fail(n, "unknown function %q", n.name)
	}
	if len(n.kids) < f.MinArgs || (f.MaxArgs >= 0 && len(n.kids) > f.MaxArgs) {
		return Value{}, e.fail(n, "%s takes %s", f.Name, arity(f))
	}
	// Arguments are evaluated in place rather than collected into a slice,
	// which would escape to the heap on every call.
	x, err := e.num(n.kids[0], env)
	if err != nil {
		return Value{}, err
	}
	switch f.Name {
	case "abs":
		return e.finite(n, math.Abs(x))
	case "log":
		if x <= 0 {
			return Value{}, e.fail(n, "log of %v, which is not positive", x)
		}
		return e.finite(n, math.Log(x))
	case "exp":
		return e.finite(n, math.Exp(x))
	case "sqrt":
		if x < 0 {
			return Value{}, e.fail(n, "sqrt of negative %v", x)
		}
		return e.finite(n, math.Sqrt(x))
	case "min", "max":
		for _, k := range n.kids[1:] {
			y, err := e.num(k, env)
			if err != nil {
				return Value{}, err
			}
			if f.Name == "min" {
				x = math.Min(x, y)
			} else {
				x = math.Max(x, y)
			}
		}
		return e.finite(n, x)
	}
	y, err := e.num(n.kids[1], env)
	if err != nil {
		return Value{}, err
	}
	if f.Name == "pow" {
		return e.finite(n, math.Pow(x, y))
	}
	// clip
	hi, err := e.num(n.kids[2], env)
	if err != nil {
		return Value{}, err
	}
	if y > hi {
		return Value{}, e.fail(n, "clip bounds are reversed: lo %v > hi %v", y, hi)
	}
	return e.finite(n, math.Max(y, math.Min(x, hi)))
}

func arity(f *Func) string {
	switch {
	case f.MaxArgs < 0:
		return fmt.Sprintf("%d or more arguments", f.MinArgs)
	case f.MinArgs == 1 && f.MaxArgs == 1:
		return "1 argument"
	case f.MinArgs == f.MaxArgs:
		return fmt.Sprintf("%d arguments", f.MinArgs)
	}
	return fmt.Sprintf("%d to %d arguments", f.MinArgs, f.MaxArgs)
}
