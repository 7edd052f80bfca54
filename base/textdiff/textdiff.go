package textdiff

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines surround each change, as in diff -u.
const context = 3

// maxCells bounds the LCS table (lines of a x lines of b).
const maxCells = 16 << 20

type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// Unified returns a unified diff from a (named aName) to b (named bName), or
// "" when they are equal.
func Unified(aName, bName, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	// aAt[k], bAt[k]: lines of a and b consumed before ops[k].
	aAt, bAt := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for k, o := range ops {
		aAt[k+1], bAt[k+1] = aAt[k], bAt[k]
		if o.kind != '+' {
			aAt[k+1]++
		}
		if o.kind != '-' {
			bAt[k+1]++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	// Group changes separated by at most 2*context unchanged lines into
	// one hunk, with context lines around it.
	i := 0
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		hs := max(0, i-context)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := 0
			for end+run < len(ops) && ops[end+run].kind == ' ' {
				run++
			}
			if end+run == len(ops) || run > 2*context {
				end += min(run, context)
				break
			}
			end += run
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aAt[hs], aAt[end]-aAt[hs]), hunkRange(bAt[hs], bAt[end]-bAt[hs]))
		for _, o := range ops[hs:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s into lines; a missing final newline is marked the way
// diff marks it.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	noEOL := !strings.HasSuffix(s, "\n")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if noEOL {
		lines[len(lines)-1] += "\n\\ No newline at end of file"
	}
	return lines
}

func diffLines(a, b []string) []op {
	// Trim the common prefix and suffix: formatting changes are usually local.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for _, l := range a[:p] {
		ops = append(ops, op{' ', l})
	}
	ops = append(ops, lcs(a[p:len(a)-s], b[p:len(b)-s])...)
	for _, l := range a[len(a)-s:] {
		ops = append(ops, op{' ', l})
	}
	return ops
}

func lcs(a, b []string) []op {
	n, m := len(a), len(b)
	if n*m > maxCells {
		var ops []op
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	// t[i][j] = LCS length of a[i:], b[j:].
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, op{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, op{'+', b[j]})
	}
	return ops
}
