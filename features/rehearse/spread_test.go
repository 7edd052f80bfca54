package rehearse

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/runtime"
)

// TestParallelRehearsalsAreTheSequentialOnes: rehearsals made at once
// across cores are, rehearsal for rehearsal, those made one at a time.
func TestParallelRehearsalsAreTheSequentialOnes(t *testing.T) {
	t.Parallel()
	p := compileSpec(t, "../../specs/quickstart-critic.hcl")
	all, err := Rehearse(context.Background(), p, Options{Runs: 3, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		one, err := Rehearse(context.Background(), p, Options{Runs: 1, Seed: 11 + int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(one.Rehearsals[0], all.Rehearsals[i]); d != "" {
			t.Errorf("rehearsal %d (-alone +among three):\n%s", i+1, d)
		}
	}
	for _, f := range all.Figures {
		if len(f.Values) != 3 {
			t.Fatalf("%s: %d values, want 3", f.Name, len(f.Values))
		}
	}
}

// TestCapStopsAndSpread: the share of rehearsals each cap stopped, the
// terminal histogram and the HTML plot.
func TestCapStopsAndSpread(t *testing.T) {
	rs := []Rehearsal{
		{Seed: 1, State: runtime.StateFinished},
		{Seed: 2, State: runtime.StateStoppedAtCap, Cuts: []runtime.PhaseCut{
			{Phase: "evolution", Reason: "stopped: the GPU-hour cap of 10 leaves no room for 2 GPU-hours more"},
			{Phase: "eval", Reason: "got fewer real runs than the plan gives it: the GPU-hour cap of 10 is spent"},
		}},
		{Seed: 3, State: runtime.StateStoppedAtCap, Cuts: []runtime.PhaseCut{{Phase: "evolution", Reason: "stopped: the dollar cap of $5 is spent"}}},
		{Seed: 4, State: runtime.StateFinished},
	}
	got := capStops(rs)
	want := []CapStop{{Cap: "any", Rehearsals: 2, Share: 0.5}, {Cap: "gpu_hours", Rehearsals: 1, Share: 0.25}, {Cap: "usd", Rehearsals: 1, Share: 0.25}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cap stops (-want +got):\n%s", d)
	}
	if capStops(rs[:1]) != nil {
		t.Error("a rehearsal no cap stopped counts as stopped")
	}
	if h := histogram([]float64{0, 1, 1, 9, 10}, 0, 10); !cmp.Equal(h, []int{1, 2, 0, 0, 0, 0, 0, 0, 0, 2}) {
		t.Errorf("histogram %v", h)
	}
	f := Figure{Name: "totals.usd", Min: 1, Median: 2, Max: 10, Values: []float64{1, 2, 10, 2}}
	f.Estimate.Low, f.Estimate.Expected, f.Estimate.High = 0, 3, 12
	r := &Report{Plan: "p", Rehearsals: rs, Figures: []Figure{f}, CapStops: got, CapsHeld: true}
	var term, page bytes.Buffer
	WriteSpread(&term, r)
	for _, s := range []string{"totals.usd  ▄█       ▄", "[1, 10]", "gpu_hours   1 of 4 (25%)", "any         2 of 4 (50%)"} {
		if !strings.Contains(term.String(), s) {
			t.Errorf("terminal spread lacks %q:\n%s", s, term.String())
		}
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<svg", "<rect", `<title>high 12</title>`, "<td>usd</td><td>1</td><td>25%</td>"} {
		if !strings.Contains(page.String(), s) {
			t.Errorf("HTML report lacks %q", s)
		}
	}
	if n := strings.Count(page.String(), "<rect"); n != 3 {
		t.Errorf("%d bars, want 3 (1 in the first bin, 2 and 2 in the second, 10 in the last)", n)
	}
}
