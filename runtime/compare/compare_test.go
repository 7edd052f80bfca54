package compare

import (
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// A row takes what the run measured, leaves blank what it did not, and
// merges the plan's --set overrides with the variant's axis values.
func TestFromReport(t *testing.T) {
	p := &plan.Plan{Hash: "sha256:abc", Overrides: map[string]any{"loop.policy.steps": 40.0},
		Variants: []*plan.Variant{
			{Name: "votes=3", Overrides: map[string]any{"critic.j.votes": 3.0}},
			{Name: "votes=5", Overrides: map[string]any{"critic.j.votes": 5.0},
				Critics: []*plan.Critic{{Name: "j", Routed: plan.Count{Low: 0.1, Expected: 0.25, High: 0.5}}},
				Loops:   []*plan.Loop{{Name: "policy", Routes: true, Critic: "j"}, {Name: "other"}}},
		}}
	rep := &runtime.Report{
		Status: &runtime.Status{ID: "g-v2", Variant: "votes=5", State: "finished", RealRuns: 7, RunUSD: 1, Meta: map[string]string{"group": "g"},
			Totals: &runtime.Totals{USD: 2.5, Measured: &runtime.Measured{Loops: map[string]*runtime.MeasuredLoop{
				"policy": {Judged: 8, Routed: 2}, "other": {Judged: 100, Routed: 100}}}}},
		Calibration: []runtime.CalibrationFigures{{MAE: 0.5}, {MAE: 0.2}},
		Best:        []runtime.BestProposal{{Gain: 0.7}, {Gain: 0.1}},
	}
	r := FromReport(rep, p)
	if r.Group != "g" || r.USD != 2.5 || r.RealRuns != 7 {
		t.Errorf("row = %+v", r)
	}
	// The plan hash is the variant's own, not the sweep's.
	if h := p.VariantHash("votes=5"); r.PlanHash != h || h == p.VariantHash("votes=3") || r.PlanHash == p.Hash {
		t.Errorf("plan hash %s, variant's %s, sweep's %s", r.PlanHash, h, p.Hash)
	}
	if len(r.Overrides) != 2 || r.Overrides["critic.j.votes"] != 5.0 || r.Overrides["loop.policy.steps"] != 40.0 {
		t.Errorf("overrides = %v", r.Overrides)
	}
	if r.BestGain == nil || *r.BestGain != 0.7 || r.CalibrationMAE == nil || *r.CalibrationMAE != 0.2 {
		t.Errorf("best gain %v, calibration %v", r.BestGain, r.CalibrationMAE)
	}
	// Only the routing loop counts: 2 of 8.
	if r.RoutedShare == nil || *r.RoutedShare != 0.25 || r.ExpectedRouted == nil || *r.ExpectedRouted != 0.25 {
		t.Errorf("routed %v, expected %v", r.RoutedShare, r.ExpectedRouted)
	}
	if r.Avg != nil || r.Best != nil {
		t.Errorf("no evaluation, but Avg@k %v, Best@k %v", r.Avg, r.Best)
	}

	// A live run: reserved dollars, nothing routed yet, no plan at hand.
	live := FromReport(&runtime.Report{Status: &runtime.Status{ID: "x", State: "running", RunUSD: 0.5}}, nil)
	if live.USD != 0.5 || live.RoutedShare != nil || live.BestGain != nil || live.Overrides != nil {
		t.Errorf("live row = %+v", live)
	}
}
