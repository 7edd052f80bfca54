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
