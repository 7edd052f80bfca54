package formula

import (
	"fmt"

	"github.com/assay-lang/assay/lang/formula/tree"
)

// Node is a checked formula's tree as plain data: what a compiled plan
// carries (plan.Node is the same type), declared once in package tree.
type Node = tree.Node

var opNames = map[opcode]string{
	opNum: "num", opBool: "bool", opVar: "var", opCall: "call",
	opNeg: "neg", opNot: "not",
	opAdd: "add", opSub: "sub", opMul: "mul", opDiv: "div",
	opLt: "lt", opLe: "le", opGt: "gt", opGe: "ge", opEq: "eq", opNe: "ne",
	opAnd: "and", opOr: "or", opCond: "cond",
}

var opByName = func() map[string]opcode {
	m := map[string]opcode{}
	for op, n := range opNames {
		m[n] = op
	}
	return m
}()

// arities of the operators with a fixed number of operands.
var arities = map[opcode]int{
	opNum: 0, opBool: 0, opVar: 0, opNeg: 1, opNot: 1,
	opAdd: 2, opSub: 2, opMul: 2, opDiv: 2,
	opLt: 2, opLe: 2, opGt: 2, opGe: 2, opEq: 2, opNe: 2,
	opAnd: 2, opOr: 2, opCond: 3,
}

// Tree returns the formula's tree as plain data.
func (e *Expr) Tree() *Node {
	if e == nil || e.root == nil {
		return nil
	}
	var conv func(n *node) *Node
	conv = func(n *node) *Node {
		out := &Node{Op: opNames[n.op], Num: n.num, Name: n.name, Start: n.start, End: n.end}
		for _, k := range n.kids {
			out.Args = append(out.Args, conv(k))
		}
		return out
	}
	return conv(e.root)
}

// FromTree rebuilds an evaluable formula from the tree Tree returned and the
// formula's source text. It does not parse: it checks that the tree is well
// formed (known operations and functions, their operand counts, offsets
// inside src, bounded depth), since a plan file may have been edited by
// hand.
func FromTree(src string, t *Node) (*Expr, error) {
	if t == nil {
		return nil, fmt.Errorf("formula %q: no tree", src)
	}
	var conv func(t *Node, depth int) (*node, error)
	conv = func(t *Node, depth int) (*node, error) {
		if t == nil {
			return nil, fmt.Errorf("formula %q: missing operand", src)
		}
		if depth > 4*maxDepth {
			return nil, fmt.Errorf("formula %q: tree nests too deeply", src)
		}
		op, ok := opByName[t.Op]
		if !ok {
			return nil, fmt.Errorf("formula %q: unknown operation %q", src, t.Op)
		}
		if t.Start < 0 || t.End < t.Start || t.End > len(src) {
			return nil, fmt.Errorf("formula %q: node %s spans [%d, %d), outside the text", src, t.Op, t.Start, t.End)
		}
		n := &node{op: op, num: t.Num, name: t.Name, start: t.Start, end: t.End}
		if want, fixed := arities[op]; fixed && len(t.Args) != want {
			return nil, fmt.Errorf("formula %q: %s takes %d operands, the tree has %d", src, t.Op, want, len(t.Args))
		}
		switch op {
		case opCall:
			n.fn = lookupFunc(t.Name)
			if n.fn == nil {
				return nil, fmt.Errorf("formula %q: unknown function %q", src, t.Name)
			}
			if len(t.Args) < n.fn.MinArgs || (n.fn.MaxArgs >= 0 && len(t.Args) > n.fn.MaxArgs) {
				return nil, fmt.Errorf("formula %q: %s takes %s", src, t.Name, arity(n.fn))
			}
		case opVar:
			if t.Name == "" {
				return nil, fmt.Errorf("formula %q: a name without a name", src)
			}
		}
		for _, a := range t.Args {
			k, err := conv(a, depth+1)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k)
		}
		return n, nil
	}
	root, err := conv(t, 0)
	if err != nil {
		return nil, err
	}
	return &Expr{src: src, root: root}, nil
}
