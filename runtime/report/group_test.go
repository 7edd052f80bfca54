package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-lang/assay/runtime/compare"
)

// The group page shows each arm's figure with its interval, the
// difference from the first arm marked only where its interval excludes
// zero, and a figure of one seed as such.
func TestGroupHTML(t *testing.T) {
	var rows []*compare.Row
	for i, x := range []float64{1, 2, 3, 11, 12, 13} {
		v := "a"
		if i >= 3 {
			v = "b"
		}
		rows = append(rows, &compare.Row{ID: "g-" + v, Plan: "p", Variant: v, State: "finished", BestGain: &x})
	}
	one := 5.0
	rows = append(rows, &compare.Row{ID: "g-c", Plan: "p", Variant: "c", State: "finished", BestGain: &one})
	g := &Group{Group: "g", Runs: rows, Arms: compare.Arms(rows)}
	var b bytes.Buffer
	if err := WriteGroupHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		// a: 2 ± 4.3027·1/√3.
		`<td>a</td><td>best_real_gain</td><td class="n">3</td><td class="n">2</td><td class="n">1</td><td class="n">-0.484 to 4.484</td>`,
		`<td>b</td><td>best_real_gain</td>`, `&#43;10 vs a</td>`, `<b>differs</b>`,
		`<td>c</td><td>best_real_gain</td><td class="n">1</td><td class="n">5</td><td class="n"></td><td class="n">n=1, no interval</td>`,
		`no interval (n=1)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Only b's best gain differs: the runs' zero real runs, hours and
	// dollars are equal in every arm.
	if n := strings.Count(page, "<b>differs</b>"); n != 1 {
		t.Errorf("%d differences marked, want 1", n)
	}
}

// The group page plots each figure over seeds: per arm a dot for each
// seed, the mean, and the 95% interval as a whisker where there is one;
// the arm that differs from the first is starred.
func TestGroupPlots(t *testing.T) {
	var rows []*compare.Row
	for i, x := range []float64{1, 2, 3, 11, 12, 13} {
		v := "a"
		if i >= 3 {
			v = "b"
		}
		rows = append(rows, &compare.Row{ID: "g-" + v, Plan: "p", Variant: v, State: "finished", BestGain: &x})
	}
	one := 5.0
	rows = append(rows, &compare.Row{ID: "g-c", Plan: "p", Variant: "c", State: "finished", BestGain: &one})
	plots := GroupPlots(compare.Arms(rows))
	var gain *IntervalPlot
	for i := range plots {
		if plots[i].Figure == "best_real_gain" {
			gain = &plots[i]
		}
	}
	if gain == nil || len(gain.Arms) != 3 {
		t.Fatalf("plots %+v: want best_real_gain over three arms", plots)
	}
	if a := gain.Arms[0]; a.Low == nil || a.High == nil || *a.Low > 1 || *a.High < 3 || len(a.Values) != 3 {
		t.Fatalf("arm a: %+v", a)
	}
	if c := gain.Arms[2]; c.Low != nil || len(c.Values) != 1 {
		t.Fatalf("arm c of one seed: %+v", c)
	}
	svg := string(gain.SVG())
	if n := strings.Count(svg, "<circle"); n != 7 {
		t.Errorf("%d seed dots, want 7", n)
	}
	// Two whiskers with two caps each: six interval lines, beside the
	// three means.
	if n := strings.Count(svg, `stroke-width="2"`); n != 6 {
		t.Errorf("%d whisker lines, want 6", n)
	}
	if !strings.Contains(svg, ">b *</text>") || strings.Contains(svg, ">c *</text>") {
		t.Errorf("only b differs from a:\n%s", svg)
	}
	var b bytes.Buffer
	if err := WriteGroupHTML(&b, &Group{Group: "g", Runs: rows, Arms: compare.Arms(rows)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `aria-label="Best real gain"`) {
		t.Error("the group page has no plot of the best real gain")
	}
}
