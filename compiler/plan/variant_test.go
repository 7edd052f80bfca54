package plan

import (
	"strings"
	"testing"
)

func TestVariantIndex(t *testing.T) {
	p := &Plan{Variants: []*Variant{{Name: "a"}, {Name: "b"}}}
	for name, want := range map[string]int{"": 0, "a": 0, "b": 1} {
		if i, err := p.VariantIndex(name); err != nil || i != want {
			t.Errorf("VariantIndex(%q) = %d, %v; want %d", name, i, err, want)
		}
	}
	if _, err := p.VariantIndex("c"); err == nil || !strings.Contains(err.Error(), `no variant "c" (it has a, b)`) {
		t.Errorf("unknown variant: %v", err)
	}
	if _, err := (&Plan{}).Variant(""); err == nil {
		t.Error("a plan without variants gave one")
	}
}
