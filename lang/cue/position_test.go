package cue

import (
	"strings"
	"testing"
)

// Every diagnostic has a position, even a structural cycle, which CUE
// reports without one: it points at the start of the spec and names the
// field.
func TestStructuralCycleHasPosition(t *testing.T) {
	for _, src := range []string{"a: b: a\nb: a: b\n", "#A: {a: #A}\nx: #A\n"} {
		_, ds := Load([]Source{{Name: "cyc.cue", Src: []byte(src)}}, Options{})
		found := false
		for _, d := range ds {
			if !d.Range.Valid() {
				t.Errorf("%q: diagnostic without a position: %s", src, d.Summary)
			}
			if strings.Contains(d.Summary, "structural cycle") {
				found = true
				if !strings.Contains(d.Summary, "(at ") {
					t.Errorf("%q: cycle does not name its field: %s", src, d.Summary)
				}
			}
		}
		if !found {
			t.Errorf("%q: no structural cycle reported:\n%s", src, ds.Format(0))
		}
	}
}
