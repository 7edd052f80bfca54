package hcl

import (
	"fmt"
	"os"
	"path/filepath"
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
		{"size", "name = \"" + strings.Repeat("a", 1<<20) + "\"\n", codeTooLarge, 1, 1, "bytes"},
		{"brackets", "locals {\n x = " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n}\n", codeTooComplex, 2, 105, "nesting deeper than 100"},
		{"blocks", strings.Repeat("a {\n", 200) + strings.Repeat("}\n", 200), codeTooComplex, 101, 3, "nesting deeper than 100"},
		{"templates", "locals {\n x = " + strings.Repeat("\"${", 200) + "1" + strings.Repeat("}\"", 200) + "\n}\n", codeTooComplex, 2, 154, "nesting deeper than 100"},
		{"prefix operators", "locals {\n x = " + strings.Repeat("-", 200) + "1\n}\n", codeTooComplex, 2, 106, "prefix operators"},
		{"operators", "locals {\n x = 1" + strings.Repeat("+1", 60000) + "\n}\n", codeTooComplex, 2, 100007, "more than 50000 operators"},
		// 9x10^4 values: about a second of work, far past the deadline.
		{"slow local", "locals {\n a = 1\n x = [for a in range(300) : [for b in range(300) : \"${a}-${b}\"]]\n}\n", codeTooComplex, 3, 6, "evaluating this expression did not finish"},
		{"slow dynamic block", "dynamic \"environment\" {\n for_each = flatten([for a in range(300) : [for b in range(300) : \"${a}-${b}\"]])\n labels = [environment.value]\n content {}\n}\n", codeTooComplex, 2, 13, "expanding dynamic blocks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Load("l.hcl", []byte(c.src), Options{Timeout: 100 * time.Millisecond})
			if len(ds) != 1 {
				t.Fatalf("want one diagnostic, got %d:\n%s", len(ds), ds.Format(0))
			}
			d := ds[0]
			if d.Code != c.code || d.Range.Start.Line != c.line || d.Range.Start.Column != c.col || !strings.Contains(d.Summary, c.summary) || d.Detail == "" {
				t.Errorf("got %s:%d:%d %s %q (%s), want %d:%d %s %q", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column, d.Code, d.Summary, d.Detail, c.line, c.col, c.code, c.summary)
			}
		})
	}
}

// A spec just inside the limits loads as usual.
func TestWithinLimits(t *testing.T) {
	src := "locals {\n x = " + strings.Repeat("[", 90) + "1" + strings.Repeat("]", 90) + "\n y = " + strings.Repeat("-", 50) + "1\n}\nname = \"ok\"\n"
	s, ds := Load("w.hcl", []byte(src), Options{})
	if ds.HasErrors() || s.Name.V != "ok" {
		t.Fatalf("%s", ds.Format(0))
	}
}

// manyLocals is a chain of n locals, each naming the next, declared in the
// order that needs the most passes of a naive resolver.
func manyLocals(n int) []byte {
	var b strings.Builder
	b.WriteString("locals {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  a%06d = local.a%06d + 1\n", i, i+1)
	}
	fmt.Fprintf(&b, "  a%06d = 1\n}\nname = \"n${local.a000000}\"\n", n)
	return []byte(b.String())
}

func TestManyLocals(t *testing.T) {
	s, ds := Load("m.hcl", manyLocals(2000), Options{})
	if ds.HasErrors() || s.Name.V != "n2001" {
		t.Fatalf("name %q: %s", s.Name.V, ds.Format(0))
	}
}

// BenchmarkManyLocals guards against resolving locals in quadratic time.
func BenchmarkManyLocals(b *testing.B) {
	src := manyLocals(20000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, ds := Load("m.hcl", src, Options{}); ds.HasErrors() {
			b.Fatal(ds.Format(0))
		}
	}
}

// Format and variable files go through the parser too, so the same bounds
// apply before it runs.
func TestLimitsFormatAndVarFile(t *testing.T) {
	deep := []byte("x = " + strings.Repeat("\"${", 200) + "1" + strings.Repeat("}\"", 200) + "\n")
	if _, ds := Format("f.hcl", deep); len(ds) != 1 || ds[0].Code != codeTooComplex {
		t.Errorf("Format: %s", ds.Format(0))
	}
	vf := filepath.Join(t.TempDir(), "v.hcl")
	if err := os.WriteFile(vf, deep, 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds := Load("s.hcl", []byte("variable \"x\" {\n default = 1\n}\nname = \"a\"\n"), Options{VarFiles: []string{vf}})
	if len(ds) != 1 || ds[0].Code != codeTooComplex || ds[0].Range.Filename != vf {
		t.Errorf("var file: %s", ds.Format(0))
	}
	_, ds = Load("s.hcl", []byte("variable \"x\" {\n type = list(number)\n default = [1]\n}\nname = \"a\"\n"), Options{Vars: []string{"x=" + strings.Repeat("[", 200) + "1" + strings.Repeat("]", 200)}})
	if len(ds) != 1 || ds[0].Code != codeTooComplex || ds[0].Range.Filename != "-var" {
		t.Errorf("-var: %s", ds.Format(0))
	}
}

// Functions that build their whole result in one allocation refuse results
// that no spec needs, at the call, before allocating; ordinary uses work.
func TestBoundedFunctions(t *testing.T) {
	big := "locals {\n a = \"" + strings.Repeat("a", 2000) + "\"\n"
	for _, c := range []struct{ name, src, want string }{
		{"replace", big + " b = replace(local.a, \"a\", local.a)\n c = replace(local.b, \"a\", local.b)\n}\n", "replace would build a string of"},
		{"replace empty", big + " b = join(\"\", [for i in range(1000) : local.a])\n c = replace(local.b, \"\", local.b)\n}\n", "replace would build"},
		{"join", big + " b = join(local.a, range(1000))\n c = join(local.b, range(1000))\n}\n", "join would build"},
		{"format", "locals {\n x = format(\"%-999999999s|\", \"a\")\n}\n", "at most 10000"},
		{"formatlist", "locals {\n x = formatlist(\"%.99999f\", [1, 2])\n}\n", "at most 10000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Load("b.hcl", []byte(c.src), Options{})
			if len(ds) != 1 || ds[0].Code != codeExpr || !strings.Contains(ds[0].Detail, c.want) {
				t.Fatalf("want one E_EXPR saying %q, got:\n%s", c.want, ds.Format(0))
			}
		})
	}
	src := "locals {\n f = format(\"%5.2f|%-3s|%%|%[2]s\", 1.5, \"x\")\n r = replace(\"abc\", \"b\", \"xy\")\n j = join(\",\", [\"a\", \"b\"], [\"c\"])\n}\nname = \"${local.f}${local.r}${local.j}\"\n"
	s, ds := Load("ok.hcl", []byte(src), Options{})
	if ds.HasErrors() || s.Name.V != " 1.50|x  |%|xaxyca,b,c" {
		t.Fatalf("name %q: %s", s.Name.V, ds.Format(0))
	}
}
