package contract

import (
	"path/filepath"
	"testing"
)

// TestCriticTrainingRunsWithinItsEstimate runs specs/laptop/critic-train.hcl
// (teacher critiques, SFT and GRPO of the offline critic, then evolution
// screened by it) for real: every count, the teacher's calls and the
// critic's GRPO verdicts among them, stays inside the estimate, and the
// strata and updates are measured.
func TestCriticTrainingRunsWithinItsEstimate(t *testing.T) {
	p, ds := compile(t, filepath.Join(specsDir(t), "laptop", "critic-train.hcl"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res, _ := checkRun(t, p, 0)
	m := res.Totals.Measured.CriticTrainings["critic"]
	if m == nil || m.Sampled+m.Revised+m.Guided+m.Dropped != 20 || m.Updates < 1 || m.GRPOSteps != 4 || m.Verdicts != 4*8*4 {
		t.Fatalf("critic training measured %+v: want 20 pairs critiqued, an update, 4 GRPO steps of 128 verdicts", m)
	}
	if r := res.Totals.Measured.Roles["teacher"]; r == nil || r.Calls < 80 || r.Calls > 180 {
		t.Errorf("teacher calls %+v, want 80 to 180", r)
	}
}
