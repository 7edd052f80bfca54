package hcl

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
)

// Codes of the guards that keep a load bounded.
const (
	codeTooLarge   = "E_TOO_LARGE"
	codeTooComplex = "E_TOO_COMPLEX"
)

// tooLarge checks the source's size and nesting before the parser sees it:
// the parser recurses on nesting, and a deep enough file would overflow the
// stack, which ends the process however it is called.
func tooLarge(filename string, src []byte, lim budget.Limits) *diag.Diagnostic {
	start := diag.Range{Filename: filename, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
	if len(src) > lim.MaxSourceBytes {
		return diag.Errorf(codeTooLarge, start, "spec is %d bytes; Assay reads specs of at most %d bytes", len(src), lim.MaxSourceBytes).
			WithDetail("A spec describes an experiment in a few kilobytes; move generated data (task lists, tables) into a benchmark or environment definition instead.")
	}
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	depth, ops, unary := 0, 0, 0
	for i, t := range tokens {
		switch t.Type {
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash,
			hclsyntax.TokenPercent, hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang,
			hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan,
			hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq,
			hclsyntax.TokenQuestion:
			ops++
			if ops > lim.MaxOperators {
				return diag.Errorf(codeTooComplex, toRange(t.Range), "more than %d operators", lim.MaxOperators).
					WithDetail("Expressions this long take the parser and evaluator far too long; write the values out or compute them outside the spec.")
			}
			// A run of prefix operators (- - - x) nests like parentheses.
			if i > 0 && (t.Type == hclsyntax.TokenMinus || t.Type == hclsyntax.TokenBang) && isOperator(tokens[i-1].Type) {
				unary++
				if unary > lim.MaxDepth {
					return diag.Errorf(codeTooComplex, toRange(t.Range), "more than %d prefix operators in a row", lim.MaxDepth).
						WithDetail("Each one nests the expression a level deeper; simplify it.")
				}
			} else {
				unary = 0
			}
			continue
		}
		unary = 0
		switch t.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen,
			hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc,
			hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			depth++
			if depth > lim.MaxDepth {
				return diag.Errorf(codeTooComplex, toRange(t.Range), "nesting deeper than %d levels", lim.MaxDepth).
					WithDetail("Brackets, braces, parentheses and string templates nest more than %d deep here; flatten the expression or split it into locals.", lim.MaxDepth)
			}
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
			hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

func isOperator(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash,
		hclsyntax.TokenPercent, hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang,
		hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan,
		hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq,
		hclsyntax.TokenQuestion, hclsyntax.TokenEqual, hclsyntax.TokenColon, hclsyntax.TokenOParen,
		hclsyntax.TokenOBrack, hclsyntax.TokenComma:
		return true
	}
	return false
}

// tracker records which expression the evaluation is in, so a spec that
// runs out of time or memory can be reported where it does so. It is read
// from the goroutine that waits on the evaluation.
type tracker struct {
	at atomic.Pointer[hcl.Range]
}

// enter marks r as being evaluated; the returned func clears it.
func (t *tracker) enter(r hcl.Range) func() {
	t.at.Store(&r)
	return func() { t.at.Store(nil) }
}

// exceeded is the diagnostic for a spec that hit an evaluation limit.
func exceeded(ex budget.Exceeded, lim budget.Limits, at *hcl.Range, body *hclsyntax.Body) *diag.Diagnostic {
	what := fmt.Sprintf("did not finish within %s", lim.Timeout.Round(time.Millisecond))
	if ex == budget.Memory {
		what = fmt.Sprintf("needed more than %d MiB of memory", lim.MaxHeapGrowth>>20)
	}
	where := "evaluating the spec"
	var rng diag.Range
	switch {
	case at != nil:
		rng = toRange(*at)
		where = "evaluating this expression"
	case firstForEach(body) != nil:
		rng = toRange(firstForEach(body).Expr.Range())
		where = "expanding dynamic blocks"
	default:
		rng = toRange(body.SrcRange)
		rng.End = rng.Start
	}
	return diag.Errorf(codeTooComplex, rng, "%s %s", where, what).
		WithDetail("A spec should evaluate in milliseconds. Look for for-expressions nested over large ranges, dynamic blocks with a large for_each, or strings that double in size from local to local, and write the values out or make them smaller.")
}

// firstForEach finds the for_each of the first dynamic block, at any depth.
func firstForEach(body *hclsyntax.Body) *hclsyntax.Attribute {
	for _, b := range body.Blocks {
		if b.Type == "dynamic" {
			if a, ok := b.Body.Attributes["for_each"]; ok {
				return a
			}
		}
		if a := firstForEach(b.Body); a != nil {
			return a
		}
	}
	return nil
}
