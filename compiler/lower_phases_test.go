package compiler

import (
	"reflect"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/spec"
)

// TestEveryLoopKindLowers checks that every loop kind the spec accepts has
// a full row in loopKinds, so a new kind cannot compile to a loop without
// phases.
func TestEveryLoopKindLowers(t *testing.T) {
	f, ok := reflect.TypeOf(spec.Loop{}).FieldByName("Kind")
	if !ok {
		t.Fatal("spec.Loop has no Kind field")
	}
	enum := f.Tag.Get("enum")
	if enum == "" {
		t.Fatal("spec.Loop.Kind has no enum tag")
	}
	for _, k := range strings.Split(enum, "|") {
		row, ok := loopKinds[k]
		if !ok || row.settle == nil || row.fields == nil || row.phases == nil {
			t.Errorf("loop kind %q has no full row in loopKinds", k)
		}
	}
}
