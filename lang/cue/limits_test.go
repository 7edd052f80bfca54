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

// Builtins that can build a value of any size in one allocation are refused
// before evaluation, whatever the import's local name.
func TestRefusedBuiltins(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"replace", "import \"strings\"\n_a: \"aa\"\nname: strings.Replace(_a, \"a\", _a, -1)\n", "strings.Replace is not available"},
		{"alias", "import s \"strings\"\nname: s.Repeat(\"a\", 3)\n", "strings.Repeat is not available"},
		{"join", "import \"strings\"\nname: strings.Join([\"a\"], \"-\")\n", "strings.Join is not available"},
		{"list", "import \"list\"\n_x: list.Repeat([1], 3)\n", "list.Repeat is not available"},
		{"string times", "name: \"ab\" * 3\n", "multiplying a string or list"},
		{"list times", "_x: 3 * ([1])\n", "multiplying a string or list"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Load([]Source{{Name: "r.cue", Src: []byte(c.src)}}, Options{})
			if len(ds) != 1 || ds[0].Code != codeTooComplex || !strings.Contains(ds[0].Summary, c.want) || ds[0].Range.Filename != "r.cue" || ds[0].Range.Start.Line == 0 {
				t.Fatalf("want one E_TOO_COMPLEX %q, got:\n%s", c.want, ds.Format(0))
			}
		})
	}
	// Other functions of the same packages, and numbers multiplied, are fine.
	src := "import \"strings\"\nimport \"list\"\n_n: 2 * 3\nname: strings.ToUpper(\"x\\(len(list.Range(0, _n, 1)))\")\n"
	s, ds := Load([]Source{{Name: "ok.cue", Src: []byte(src)}}, Options{})
	if ds.HasErrors() || s.Name.V != "X6" {
		t.Fatalf("name %q: %s", s.Name.V, ds.Format(0))
	}
}
