package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// TestReasonTallyBounded keeps the last distinct messages, most recent
// first, each counted, each clipped, and no more than reasonsKept.
func TestReasonTallyBounded(t *testing.T) {
	var tl reasonTally
	for i := 0; i < 100; i++ {
		tl.add(fmt.Sprintf("failure %d", i%10))
	}
	tl.add("failure 3")
	tl.add(strings.Repeat("x", 2*reasonBytes))
	if len(tl) != 11 {
		t.Fatalf("kept %d reasons, want 11", len(tl))
	}
	got := tl.last()
	if len(got) != reasonsReported || got[1].Message != "failure 3" || got[1].Count != 11 || got[2].Message != "failure 9" {
		t.Fatalf("last = %+v", got)
	}
	for i := 0; i < 100; i++ {
		tl.add(fmt.Sprintf("other %d", i))
	}
	if len(tl) != reasonsKept {
		t.Fatalf("kept %d reasons, want %d", len(tl), reasonsKept)
	}
	if n := len(got[0].Message); n > reasonBytes+3 || got[0].Count != 1 {
		t.Fatalf("a long message kept %d bytes", n)
	}
	if clipReason(" a\n\x1b[31mb ") != `a \x1b[31mb` {
		t.Fatalf("clipReason kept %q", clipReason(" a\n\x1b[31mb "))
	}
}

// TestPhaseVerdict: which counts of a phase make it one that measured
// nothing, and which do not.
func TestPhaseVerdict(t *testing.T) {
	ph := &plan.Phase{Name: "evolution.e", Kind: plan.PhaseEvolution,
		Calls: plan.Calls{RealRuns: map[string]plan.Count{"env": {Low: 2, High: 2}}}}
	noCut := func(string) bool { return false }
	cand := []realRun{{Key: "c"}}
	failed := []outcome{{Failed: true, Result: &plugins.RunResult{Reason: "no metric"}}}
	cases := []struct {
		name string
		feed func(w *phaseWatch)
		cut  func(string) bool
		want string // "" : no failure
	}{
		{"every build failed", func(w *phaseWatch) { w.proposal(); w.build(false, "no number"); w.build(false, "no number") }, noCut, `every build failed (2 of 2): "no number" x2`},
		{"one build of two", func(w *phaseWatch) {
			w.proposal()
			w.build(false, "x")
			w.build(true, "")
			w.realRuns(cand, []outcome{{}})
		}, noCut, ""},
		{"every call unparsed", func(w *phaseWatch) { w.call("p"); w.unparsed("p", "not JSON"); w.noProposal("not JSON") }, noCut, `every call of role p was unparsed (1 of 1)`},
		{"some calls unparsed", func(w *phaseWatch) { w.call("p"); w.call("p"); w.unparsed("p", "not JSON"); w.proposal() }, noCut, ""},
		{"every real run failed", func(w *phaseWatch) { w.proposal(); w.realRuns(cand, failed) }, noCut, `each of the 1 real runs of candidates failed, retries and repairs included: "no metric" x1`},
		{"baselines are not candidates", func(w *phaseWatch) { w.proposal(); w.realRuns([]realRun{{baseline: true}}, failed) }, noCut, ""},
		{"an infeasible run ran", func(w *phaseWatch) { w.proposal(); w.realRuns(cand, []outcome{{Infeasible: true}}) }, noCut, ""},
		{"no proposal", func(w *phaseWatch) { w.noProposal("empty") }, noCut, `the phase made no proposal (the plan gives it 2 real runs at least): "empty" x1`},
		{"no proposal, cut", func(w *phaseWatch) { w.noProposal("empty") }, func(string) bool { return true }, ""},
		{"repeats need no run", func(w *phaseWatch) { w.proposal() }, noCut, ""},
		{"a cap left out every run", func(w *phaseWatch) { w.proposal(); w.realRuns(cand, []outcome{{Skipped: true}}) }, noCut, ""},
	}
	for _, c := range cases {
		w := newPhaseWatch()
		c.feed(w)
		fs := w.verdict(ph, c.cut)
		got := failuresReason(fs)
		switch {
		case c.want == "" && len(fs) > 0:
			t.Errorf("%s: failed: %s", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: %q, want it to hold %q", c.name, got, c.want)
		}
	}
	// A baselines phase stops the run itself.
	for _, kind := range []string{plan.PhaseBaselines} {
		w := newPhaseWatch()
		w.build(false, "x")
		if fs := w.verdict(&plan.Phase{Name: kind, Kind: kind}, noCut); fs != nil {
			t.Errorf("a %s phase failed: %v", kind, fs)
		}
	}
}
