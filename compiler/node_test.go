package compiler

import (
	"reflect"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/formula"
)

// TestOneNodeType: the plan carries the formula tree package formula
// builds, not a copy of it that lowering would have to convert.
func TestOneNodeType(t *testing.T) {
	if p, f := reflect.TypeFor[plan.Node](), reflect.TypeFor[formula.Node](); p != f {
		t.Errorf("plan.Node is %v and formula.Node is %v: declare the tree once", p, f)
	}
}
