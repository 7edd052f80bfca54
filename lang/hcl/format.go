package hcl

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
)

// Format returns src in canonical layout: hclwrite's spacing and alignment,
// LF line endings, no trailing spaces, no leading blank lines, at most one
// blank line in a row, and exactly one final newline. Text inside multi-line
// strings and heredocs is left alone. Formatting is idempotent. A file with
// syntax errors is not formatted; the errors are returned instead.
func Format(filename string, src []byte) ([]byte, diag.Diagnostics) {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	// The same bounds as Load: the parser recurses on nesting.
	if d := tooLarge(filename, src, budget.Limits{}.WithDefaults()); d != nil {
		return nil, diag.Diagnostics{d}
	}
	if _, hd := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); hd.HasErrors() {
		ds := convertAll(hd, codeSyntax)
		ds.Sort()
		return nil, ds
	}
	out := tidy(hclwrite.Format(src), filename)
	// Tidying can end an alignment group (a removed blank line joins two), so
	// align once more; a second pass changes nothing.
	return tidy(hclwrite.Format(out), filename), nil
}

// tidy applies the line-level rules of Format.
func tidy(src []byte, filename string) []byte {
	protected := protectedLines(src, filename)
	lines := bytes.Split(src, []byte("\n"))
	var out bytes.Buffer
	blank := 0
	wrote := false
	for i, line := range lines {
		if protected[i+1] {
			out.Write(line)
			out.WriteByte('\n')
			blank, wrote = 0, true
			continue
		}
		line = bytes.TrimRight(line, " \t")
		if len(line) == 0 {
			blank++
			continue
		}
		if wrote && blank > 0 {
			out.WriteByte('\n')
		}
		blank = 0
		out.Write(line)
		out.WriteByte('\n')
		wrote = true
	}
	return out.Bytes()
}

// protectedLines marks the lines (1-based) that lie inside a token spanning
// several lines, such as a heredoc's body: their bytes are content.
func protectedLines(src []byte, filename string) map[int]bool {
	toks, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	p := map[int]bool{}
	for _, t := range toks {
		multi := t.Range.End.Line > t.Range.Start.Line
		if t.Type == hclsyntax.TokenNewline || t.Type == hclsyntax.TokenComment && !bytes.HasPrefix(t.Bytes, []byte("/*")) {
			multi = false // a line comment only ends in a newline
		}
		if multi {
			for l := t.Range.Start.Line; l <= t.Range.End.Line; l++ {
				p[l] = true
			}
			// A token ending at column 1 has only consumed the previous
			// line's newline; that line is not part of it.
			if t.Range.End.Column == 1 {
				delete(p, t.Range.End.Line)
			}
		}
	}
	return p
}
