package cue

import (
	"strings"
	"testing"
	"time"
)

// Specs that would hang the parser or the evaluator, or overflow the stack,
// are refused with a positioned E_TOO_LARGE or E_TOO_COMPLEX.
func TestLimits(t *testing.T) {
	cases := []struct {
		name, src string
		code      string
		line, col int
		summary   string
	}{
		{"size", "name: \"" + strings.Repeat("a", 1<<20) + "\"\n", codeTooLarge, 1, 1, "bytes"},
		{"label chain", "_x: " + strings.Repeat("a: ", 300) + "1\nname: \"a\"\n", codeTooComplex, 1, 303, "more than 100 labels in a row"},
		{"label chain after interpolation", "_s: \"\\(1)x: \\(2)\"\n_x: " + strings.Repeat("a: ", 300) + "1\n", codeTooComplex, 2, 303, "more than 100 labels in a row"},
		{"structs", "_x: " + strings.Repeat("{a: ", 150) + "1" + strings.Repeat("}", 150) + "\nname: \"a\"\n", codeTooComplex, 1, 5 + 4*100, "nesting deeper than 100"},
		{"operators", "_x: 1" + strings.Repeat("+1", 60000) + "\nname: \"a\"\n", codeTooComplex, 1, 5, "more than 50000 operators"},
		// 10^4 values: about a second of work, far past the deadline.
		{"slow comprehension", "import \"list\"\n_l: list.Range(0, 100, 1)\n_x: [for a in _l for b in _l {a}]\nname: \"a\"\n", codeTooComplex, 2, 5, "evaluating the spec did not finish"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Load([]Source{{Name: "l.cue", Src: []byte(c.src)}}, Options{Timeout: 100 * time.Millisecond})
			if len(ds) != 1 {
				t.Fatalf("want one diagnostic, got %d:\n%s", len(ds), ds.Format(0))
			}
			d := ds[0]
			if d.Code != c.code || d.Range.Filename != "l.cue" || d.Range.Start.Line != c.line || d.Range.Start.Column != c.col || !strings.Contains(d.Summary, c.summary) || d.Detail == "" {
				t.Errorf("got %s:%d:%d %s %q (%s), want %d:%d %s %q", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column, d.Code, d.Summary, d.Detail, c.line, c.col, c.code, c.summary)
			}
		})
	}
}

// A spec just inside the limits loads as usual: a long disjunction is a
// chain of operators, not nesting.
func TestWithinLimits(t *testing.T) {
	src := "_x: " + strings.Repeat("{a: ", 90) + "1" + strings.Repeat("}", 90) + "\n_y: " + strings.Repeat("a: ", 90) + "1\n" +
		"_e: " + strings.Repeat("\"a\" | ", 200) + "\"ok\"\nname: _e & \"ok\"\n"
	s, ds := Load([]Source{{Name: "w.cue", Src: []byte(src)}}, Options{})
	if ds.HasErrors() || s.Name.V != "ok" {
		t.Fatalf("%s", ds.Format(0))
	}
}
