package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"assay/compiler/plan"
	"assay/runtime"
)

func sample() *runtime.Report {
	return &runtime.Report{
		Status: &runtime.Status{ID: "r1", Plan: "p", State: "finished", RealRuns: 3, Provenance: &runtime.Provenance{
			Spec: "exp/a.hcl", GitCommit: "0123abcd", GitDirty: true, DirtyFiles: []string{"exp/a.hcl"}, PlanHash: "sha256:feed",
			Assay: "0.1.0", Overrides: []string{"-var steps=4"}, Plugins: []plan.PluginPin{{Name: "trainer", Source: "builtin:tinylm", Platform: "linux/amd64", SHA256: "beef"}},
		}},
		Steps: []runtime.StepFigures{{Loop: "policy", Step: 1, MeanReward: 0.5}, {Loop: "policy", Step: 2, MeanReward: 1.5}},
		Calibration: []runtime.CalibrationFigures{
			{Round: 1, AfterStep: 2, MAE: 0.3, Points: []runtime.CalibPoint{{Predicted: 0.1, Real: 0.4}}},
			{Round: 2, AfterStep: 4, MAE: 0.1, RankAcc: 0.7, Pairs: 3, Points: []runtime.CalibPoint{{Predicted: 0.2, Real: 0.25}}},
		},
		Burn: []runtime.BurnPoint{{Run: 1, Seconds: 0}, {Run: 2, Seconds: 3}},
		Best: []runtime.BestProposal{{Key: "seed/x/0", Task: "x/t", Text: "use <adam>", Edits: map[string]string{"b": "2", "a": "1"}, Gain: 0.25}},
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"<svg", "Reward per step", "World model error at each calibration round", "Budget burn",
		"Predicted vs real gain", "use &lt;adam&gt;", "a=1, b=2", "<polyline",
		"Provenance", "0123abcd <b>with uncommitted changes</b> exp/a.hcl", "sha256:feed", "-var steps=4", "builtin:tinylm sha256:beef (linux/amd64)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("report refers to an external asset or script: %q", bad)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	var back runtime.Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Calibration) != 2 || back.Calibration[1].MAE != 0.1 || back.Status.ID != "r1" {
		t.Errorf("round trip: %+v", back)
	}
}

func TestEmptyPlot(t *testing.T) {
	svg := string(Plot{Title: "x"}.SVG())
	if !strings.Contains(svg, "no data") {
		t.Error("empty plot has no marker")
	}
}

// TestEvaluationAndCriticShown: the evaluation's arms, families, Beats-Base
// share and world-model figures, and a loop's critic figures, are on the
// page.
func TestEvaluationAndCriticShown(t *testing.T) {
	r := sample()
	beats := 0.75
	r.Evaluation = []runtime.EvalFigures{{AvgAt: 4, BestAt: 4, States: 2, Normalize: "scale", BeatsBase: &beats,
		Arms: []runtime.ArmFigures{
			{Arm: "policy", Proposer: "proposer", States: 4, Avg: 1.5, Families: []runtime.FamilyFigures{{Family: "diffusion", States: 4, Avg: 1.5}}},
			{Arm: "icl", Proposer: "proposer", Records: 16, States: 4, Avg: -0.25},
		},
		RWM: &runtime.RWMFigures{Role: "rwm", Points: 12, RankAcc: 0.625, Pairs: 8, AdvCosine: -0.42, Gap: 2.5}}}
	r.Status.Totals = &runtime.Totals{Measured: &runtime.Measured{Loops: map[string]*runtime.MeasuredLoop{
		"evolve": {CriticVerified: 9, CriticAUROC: 0.8125, CriticErrors: 4, CriticErrorsRouted: 3, ErrorRecall: 0.75}}}}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"beats the Base arm", "s 0.75.", "<td>icl</td>", ">16<", "diffusion", "ranking accuracy 0.625", "advantage cosine -0.42",
		"Critic of loop evolve", "AUROC 0.812", "3 of them routed", "error recall 0.75"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
