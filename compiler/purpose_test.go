package compiler

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/cue"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/spec"
)

// A spec that would make no call is an error at the start of its file.
func TestNothingToDo(t *testing.T) {
	cases := []struct{ name, src, has string }{
		{"empty.hcl", "", ""},
		{"comment.hcl", "# only a comment\n", ""},
		{"plugins.hcl", "plugin \"x\" {\n  kind   = \"llm\"\n  source = \"builtin:offline\"\n}\n", "declares only plugins"},
		{"empty.cue", "", ""},
		{"comment.cue", "// only a comment\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s *spec.Spec
			if strings.HasSuffix(c.name, ".cue") {
				ls, lds := cue.Load([]cue.Source{{Name: c.name, Src: []byte(c.src)}}, cue.Options{})
				if lds.HasErrors() {
					t.Fatal(lds.Format(0))
				}
				s = ls
			} else {
				ls, lds := hcl.Load(c.name, []byte(c.src), hcl.Options{})
				if lds.HasErrors() {
					t.Fatal(lds.Format(0))
				}
				s = ls
			}
			p, ds := Compile(s, Options{})
			errs := ds.Errors()
			if p != nil || len(errs) == 0 {
				t.Fatalf("compiled; want %s", CodeNothingToDo)
			}
			d := errs[0]
			if d.Code != CodeNothingToDo || d.Range.Filename != c.name || d.Range.Start.Line != 1 || d.Range.Start.Column != 1 || !strings.Contains(d.Summary, c.has) || d.Detail == "" {
				t.Fatalf("got:\n%s", ds.Format(0))
			}
		})
	}
	// The base spec of the tests has a loop: not reported.
	_, ds := compileSource(t, "base.hcl", []byte(readBase(t)))
	for _, d := range ds {
		if d.Code == CodeNothingToDo {
			t.Fatalf("base.hcl reported: %s", d.Summary)
		}
	}
}
