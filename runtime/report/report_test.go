package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

func sample() *runtime.Report {
	return &runtime.Report{
		Status: &runtime.Status{ID: "r1", Plan: "p", State: "finished", RealRuns: 3, RunUSD: 1.25,
			Budget: plan.Budget{RealRuns: 40, USD: 25}, Totals: &runtime.Totals{USD: 3.5, LLMUSD: 2.25}, Provenance: &runtime.Provenance{
				Spec: "exp/a.hcl", GitCommit: "0123abcd", GitDirty: true, DirtyFiles: []string{"exp/a.hcl"}, PlanHash: "sha256:feed",
				Assay: "0.1.0", Overrides: []string{"-var steps=4"}, Plugins: []plan.PluginPin{{Name: "trainer", Source: "builtin:tinylm", Platform: "linux/amd64", SHA256: "beef"}},
			}},
		Compare: []runtime.Comparison{
			{Figure: "totals.usd", Low: 1, Expected: 2, High: 4, Measured: 3.5, Within: true},
			{Figure: "loops.policy.routed_share", Low: 0.1, Expected: 0.25, High: 0.5, Measured: 0.31, Within: true},
		},
		Steps: []runtime.StepFigures{{Loop: "policy", Step: 1, MeanReward: 0.5}, {Loop: "policy", Step: 2, MeanReward: 1.5}},
		Calibration: []runtime.CalibrationFigures{
			{Round: 1, AfterStep: 2, MAE: 0.3, Points: []runtime.CalibPoint{{Predicted: 0.1, Real: 0.4}}},
			{Round: 2, AfterStep: 4, MAE: 0.1, RankAcc: 0.7, Pairs: 3, Points: []runtime.CalibPoint{{Predicted: 0.2, Real: 0.25}}},
		},
		Burn: []runtime.BurnPoint{{Run: 1, Seconds: 0, USD: 0.5}, {Run: 2, Seconds: 3, USD: 1.25}},
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

// Money is shown with dollar signs, the measured routed share beside the
// expected_routed the plan assumed, and the budget caps on the burn plots.
func TestMoneyRoutedAndCaps(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"$3.50 (real runs $1.25 reserved, LLM $2.25 measured",
		"of a $25.00 cap",
		"31% measured, beside expected_routed 25% (assumed 10% – 50%)",
		`<td class="n">$2.00</td>`,
		"cap: 40 real runs",
		"cap: $25.00",
		"Budget burn: dollars",
		">$20.00<", // a dollar axis tick
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// The legend stands beside the plot area: no legend entry starts inside
// it, and every plot area ends at the same x.
func TestLegendBesidePlot(t *testing.T) {
	rect := regexp.MustCompile(`<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="[\d.]+" class="f"/>`)
	swatch := regexp.MustCompile(`<rect x="([\d.]+)" y="[\d.]+" width="10" height="(?:10|2)"`)
	var right float64
	for _, p := range Plots(sample()) {
		svg := string(p.SVG())
		m := rect.FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("%s: no plot area", p.Title)
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		w, _ := strconv.ParseFloat(m[2], 64)
		if right != 0 && x+w != right {
			t.Errorf("%s: plot area ends at %g, another at %g", p.Title, x+w, right)
		}
		right = x + w
		sw := swatch.FindAllStringSubmatch(svg, -1)
		if len(sw) != len(p.Series)+len(p.Lines) {
			t.Errorf("%s: %d legend entries for %d series and %d lines", p.Title, len(sw), len(p.Series), len(p.Lines))
		}
		for _, s := range sw {
			if lx, _ := strconv.ParseFloat(s[1], 64); lx <= x+w {
				t.Errorf("%s: a legend entry at x=%g lies over the plot area (%g to %g)", p.Title, lx, x, x+w)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	got := strings.Join(wrap("MAE before the round joins the context", 22), "|")
	if got != "MAE before the round|joins the context" {
		t.Errorf("wrap = %q", got)
	}
	if got := wrap("", 10); len(got) != 1 {
		t.Errorf("wrap of nothing = %q", got)
	}
}

func TestMoney(t *testing.T) {
	for x, want := range map[float64]string{0: "$0", 0.0015: "$0.0015", 3.5: "$3.50", 1250: "$1,250", -2: "-$2.00", 1234567: "$1,234,567"} {
		if got := money(x); got != want {
			t.Errorf("money(%g) = %q, want %q", x, got, want)
		}
	}
}

// The ranking plot draws the in-state figure the runtime measures
// (StateRankAcc over pairs of one rollout state), and the same-task figure
// only as a second line named so.
func TestRankingPlotIsInState(t *testing.T) {
	r := sample()
	r.Calibration = []runtime.CalibrationFigures{
		{Round: 1, AfterStep: 2, RankAcc: 0.9, Pairs: 10, StateRankAcc: 0.3, StatePairs: 4},
		{Round: 2, AfterStep: 4, RankAcc: 0.8, Pairs: 10},
	}
	var rank *Plot
	for i, p := range Plots(r) {
		if strings.Contains(p.Title, "ranking accuracy") {
			rank = &Plots(r)[i]
		}
	}
	if rank == nil {
		t.Fatal("no ranking accuracy plot")
	}
	in := rank.Series[0]
	if !strings.HasPrefix(in.Name, "in-state") || len(in.Y) != 1 || in.Y[0] != 0.3 {
		t.Errorf("in-state series %q = %v, want [0.3] (StateRankAcc of round 1 only)", in.Name, in.Y)
	}
	if len(rank.Series) != 2 || !strings.HasPrefix(rank.Series[1].Name, "same task") || rank.Series[1].Y[0] != 0.9 {
		t.Errorf("second series: %+v", rank.Series)
	}
}

// Reserved and measured cost figures are labelled as such: the estimate
// table's run column holds reserved GPU-hours, the prediction table
// measured ones, and neither is called "actual".
func TestReservedAndMeasuredLabelled(t *testing.T) {
	r := sample()
	r.Compare = append(r.Compare, runtime.Comparison{Figure: "totals.gpu_hours", Low: 1, Expected: 2, High: 3, Measured: 2, Within: true})
	r.Predicted = []runtime.Prediction{{Figure: "totals.gpu_hours", Predicted: 1.5, Actual: 1.2}, {Figure: "totals.usd", Predicted: 3, Actual: 2.5}}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"<td>totals.gpu_hours <small>(reserved)</small></td><td class=\"n\">1</td>",
		"<td>totals.usd <small>(real runs reserved, LLM measured)</small></td>",
		"<th>measured</th>",
		"<td>totals.gpu_hours <small>(measured)</small></td><td class=\"n\">1.5</td>",
		"real runs $1.25 reserved, LLM $2.25 measured",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "<th>actual</th>") {
		t.Error("the report still calls a figure actual without saying reserved or measured")
	}
}

// GPU-hours show what runs held and what they measured, and overruns
// stand out.
func TestGPUHoursMeasuredAndOverruns(t *testing.T) {
	r := sample()
	r.Status.Totals.MeasuredGPUHours, r.Status.Totals.Overruns, r.Status.Totals.OverrunGPUHours = 1.5, 2, 6.2
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1.5 measured (each run at most what it held)", "<b>2 runs took longer than their high hours: 6.2 GPU-hours beyond what they held, not charged</b>"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestSuiteScoresShown(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	r := sample()
	r.Suite = &runtime.SuiteScores{Columns: []string{"baseline", "best", "eval policy"},
		Tasks: []runtime.SuiteTaskRow{{Task: "spirals", Domain: "classification", Split: "holdout", Low: 0, High: 0.6931,
			Scores: []*float64{f(0.66), f(0.05), nil}, Normalised: []*float64{f(0.0478), f(0.9279), nil}}},
		Domains: []runtime.SuiteRow{{Name: "classification", Tasks: 1, Normalised: []*float64{f(0.0478), f(0.9279), nil}}},
		Holdout: &runtime.SuiteRow{Name: "holdout", Tasks: 1, Normalised: []*float64{f(0.0478), f(0.9279), nil}}}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Task suite: normalised scores", "<th>eval policy</th>", "<td>spirals</td><td>classification</td><td>holdout</td>",
		"0.928 (0.05)", "– (–)", "domain classification", "held-out tasks"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	b.Reset()
	if err := WriteHTML(&b, sample()); err != nil || strings.Contains(b.String(), "Task suite") {
		t.Errorf("a run without a suite shows a suite table (%v)", err)
	}
}
