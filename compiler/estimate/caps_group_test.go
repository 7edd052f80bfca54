package estimate

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// Variants of a sweep that break a cap by the same figures get one
// diagnostic naming them all; different figures keep their own.
func TestCheckCapsGroupsEqualVariants(t *testing.T) {
	v := func(name string, usd plan.Count) *Variant {
		x := &Variant{Name: name, Breakdown: newBreakdown()}
		// As Estimate leaves them: the figures, and the same before the
		// caps bound them (CheckCaps reads those).
		x.Totals.USD, x.Totals.uncapped.usd = usd, usd
		return x
	}
	r := &Report{Variants: []*Variant{
		v("votes=4,threshold=0.125", plan.Count{Low: 90, Expected: 95, High: 120}),
		v("votes=4,threshold=0.25", plan.Count{Low: 90, Expected: 95, High: 120}),
		v("votes=8,threshold=0.125", plan.Count{Low: 90, Expected: 99, High: 130}),
	}}
	ds := r.CheckCaps(plan.Budget{USD: 100})
	if len(ds) != 2 {
		t.Fatalf("want 2 warnings, got:\n%s", ds.Format(0))
	}
	if !strings.Contains(ds[0].Summary, "variants votes=4,threshold=0.125; votes=4,threshold=0.25") || strings.Contains(ds[1].Summary, "variants") || !strings.Contains(ds[1].Summary, "variant votes=8,threshold=0.125") {
		t.Fatalf("got:\n%s", ds.Format(0))
	}
	for _, d := range ds {
		if strings.Contains(d.Summary, "\x00") {
			t.Fatalf("placeholder left in %q", d.Summary)
		}
	}
}
