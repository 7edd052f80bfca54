package formula

import (
	"strconv"
	"strings"
)

var opText = map[opcode]string{
	opNeg: "-", opNot: "!",
	opAdd: "+", opSub: "-", opMul: "*", opDiv: "/",
	opLt: "<", opLe: "<=", opGt: ">", opGe: ">=", opEq: "==", opNe: "!=",
	opAnd: "&&", opOr: "||",
}

// Precedence, lowest first; it mirrors the grammar's levels.
const (
	precCond = iota + 1
	precOr
	precAnd
	precCmp
	precAdd
	precMul
	precUnary
	precPrimary
)

func prec(n *node) int {
	switch n.op {
	case opCond:
		return precCond
	case opOr:
		return precOr
	case opAnd:
		return precAnd
	case opLt, opLe, opGt, opGe, opEq, opNe:
		return precCmp
	case opAdd, opSub:
		return precAdd
	case opMul, opDiv:
		return precMul
	case opNeg, opNot:
		return precUnary
	}
	return precPrimary
}

// String renders the formula canonically: single spaces around binary
// operators, only the parentheses precedence needs, numbers in shortest
// form. Parsing the result gives the same tree, so String is idempotent.
func (e *Expr) String() string {
	if e == nil || e.root == nil {
		return ""
	}
	var b strings.Builder
	write(&b, e.root)
	return b.String()
}

func formatNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// writeSub writes n, in parentheses when its precedence is below min.
func writeSub(b *strings.Builder, n *node, min int) {
	if prec(n) < min {
		b.WriteByte('(')
		write(b, n)
		b.WriteByte(')')
		return
	}
	write(b, n)
}

func write(b *strings.Builder, n *node) {
	switch n.op {
	case opNum:
		b.WriteString(formatNum(n.num))
	case opBool:
		if n.num != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case opVar:
		b.WriteString(n.name)
	case opCall:
		b.WriteString(n.name)
		b.WriteByte('(')
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, k)
		}
		b.WriteByte(')')
	case opNeg, opNot:
		b.WriteString(opText[n.op])
		writeSub(b, n.kids[0], precUnary)
	case opCond:
		// The condition is an || level expression; branches may be any.
		writeSub(b, n.kids[0], precOr)
		b.WriteString(" ? ")
		write(b, n.kids[1])
		b.WriteString(" : ")
		write(b, n.kids[2])
	default:
		p := prec(n)
		left, right := p, p+1 // left-associative
		if p == precCmp {
			left = p + 1 // comparisons do not chain
		}
		writeSub(b, n.kids[0], left)
		b.WriteByte(' ')
		b.WriteString(opText[n.op])
		b.WriteByte(' ')
		writeSub(b, n.kids[1], right)
	}
}
