package lsp

import (
	"strconv"

	"cuelang.org/go/cue/scanner"
	cuetoken "cuelang.org/go/cue/token"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// tokKind is the kind of a token, the same for HCL and CUE.
type tokKind int

const (
	tOther tokKind = iota
	tIdent
	tString  // a quoted string or heredoc, text unquoted
	tAssign  // HCL "=", CUE ":"
	tDot     // "."
	tNewline // the end of a line, or a comma: the end of a statement
	tLBrace
	tRBrace
	tOpen  // "[" or "("
	tClose // "]" or ")"
)

// tok is one token: its kind, its text (a string's content) and its bytes
// [start, end) in the source.
type tok struct {
	kind       tokKind
	text       string
	start, end int
}

// lexHCL tokenizes HCL. The lexer never fails: bad input becomes invalid
// tokens, so a buffer being typed still has a structure.
func lexHCL(src []byte) []tok {
	raw, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	var out []tok
	for i := 0; i < len(raw); i++ {
		t := raw[i]
		start, end := t.Range.Start.Byte, t.Range.End.Byte
		switch t.Type {
		case hclsyntax.TokenIdent:
			out = append(out, tok{tIdent, string(t.Bytes), start, end})
		case hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc:
			// A string runs to its closing token; interpolations inside
			// it are part of it.
			closer := hclsyntax.TokenCQuote
			if t.Type == hclsyntax.TokenOHeredoc {
				closer = hclsyntax.TokenCHeredoc
			}
			var lit []byte
			j := i + 1
			for ; j < len(raw) && raw[j].Type != closer && raw[j].Type != hclsyntax.TokenEOF; j++ {
				if raw[j].Type == hclsyntax.TokenQuotedLit || raw[j].Type == hclsyntax.TokenStringLit {
					lit = append(lit, raw[j].Bytes...)
				}
			}
			if j < len(raw) && raw[j].Type == closer {
				end = raw[j].Range.End.Byte
			} else if j > i+1 {
				end = raw[j-1].Range.End.Byte
				j--
			}
			out = append(out, tok{tString, string(lit), start, end})
			i = j
		case hclsyntax.TokenEqual:
			out = append(out, tok{tAssign, "=", start, end})
		case hclsyntax.TokenDot:
			out = append(out, tok{tDot, ".", start, end})
		case hclsyntax.TokenNewline, hclsyntax.TokenComma:
			out = append(out, tok{tNewline, "", start, end})
		case hclsyntax.TokenComment:
			// A line comment holds the newline that ends it.
			if n := len(t.Bytes); n > 0 && t.Bytes[n-1] == '\n' {
				out = append(out, tok{tNewline, "", end - 1, end})
			}
		case hclsyntax.TokenOBrace:
			out = append(out, tok{tLBrace, "{", start, end})
		case hclsyntax.TokenCBrace:
			out = append(out, tok{tRBrace, "}", start, end})
		case hclsyntax.TokenOBrack, hclsyntax.TokenOParen:
			out = append(out, tok{tOpen, string(t.Bytes), start, end})
		case hclsyntax.TokenCBrack, hclsyntax.TokenCParen:
			out = append(out, tok{tClose, string(t.Bytes), start, end})
		case hclsyntax.TokenEOF:
		default:
			out = append(out, tok{tOther, string(t.Bytes), start, end})
		}
	}
	return out
}

// lexCUE tokenizes CUE. The scanner reports errors and goes on.
func lexCUE(src []byte) []tok {
	var s scanner.Scanner
	f := cuetoken.NewFile("", -1, len(src))
	s.Init(f, src, func(cuetoken.Pos, string, []any) {}, 0)
	var out []tok
	for {
		pos, t, lit := s.Scan()
		if t == cuetoken.EOF {
			return out
		}
		start := pos.Offset()
		end := start + len(lit)
		if lit == "" {
			end = start + len(t.String())
		}
		if start < 0 || end > len(src) || start > end {
			continue
		}
		switch t {
		case cuetoken.IDENT:
			out = append(out, tok{tIdent, lit, start, end})
		case cuetoken.IN, cuetoken.FOR, cuetoken.IF, cuetoken.LET, cuetoken.FUNC:
			// Keywords are labels too: tokens: {in: 6000}.
			out = append(out, tok{tIdent, t.String(), start, start + len(t.String())})
		case cuetoken.STRING, cuetoken.INTERPOLATION:
			text := lit
			if u, err := strconv.Unquote(lit); err == nil {
				text = u
			} else if len(lit) >= 2 && lit[0] == '"' {
				text = lit[1 : len(lit)-1]
			}
			out = append(out, tok{tString, text, start, end})
		case cuetoken.COLON:
			out = append(out, tok{tAssign, ":", start, end})
		case cuetoken.PERIOD:
			out = append(out, tok{tDot, ".", start, end})
		case cuetoken.COMMA:
			// The scanner inserts a comma at the end of a line, with
			// the literal "\n".
			if lit == "\n" {
				end = start + 1
			}
			out = append(out, tok{tNewline, "", start, min(end, len(src))})
		case cuetoken.LBRACE:
			out = append(out, tok{tLBrace, "{", start, end})
		case cuetoken.RBRACE:
			out = append(out, tok{tRBrace, "}", start, end})
		case cuetoken.LBRACK, cuetoken.LPAREN:
			out = append(out, tok{tOpen, t.String(), start, end})
		case cuetoken.RBRACK, cuetoken.RPAREN:
			out = append(out, tok{tClose, t.String(), start, end})
		default:
			out = append(out, tok{tOther, t.String(), start, end})
		}
	}
}
