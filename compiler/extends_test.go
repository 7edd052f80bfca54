package compiler

import (
	"testing"

	"github.com/assay-lang/assay/lang/hcl"
)

// A spec with extends loaded by a front end alone has no base merged in; the
// compiler says so once instead of reporting every inherited field missing.
func TestExtendsUnloaded(t *testing.T) {
	s, ds := hcl.LoadFile("../specs/lm2lm-eval.hcl", hcl.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	p, cds := Compile(s, Options{})
	if p != nil || len(cds) != 1 || cds[0].Code != CodeExtendsUnloaded || cds[0].Range.Start.Line == 0 {
		t.Fatalf("want one %s at the extends attribute, got plan %v and\n%s", CodeExtendsUnloaded, p != nil, cds.Format(0))
	}
}
