package estimate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestFormatNumber(t *testing.T) {
	cases := map[float64]string{
		0: "0", 7: "7", 2.5: "2.5", 0.126: "0.13", 12.34: "12.3", 999: "999",
		1000: "1,000", 24576: "24,576", 1152000: "1,152,000", 9943.296: "9,943", -1234567: "-1,234,567",
	}
	for in, want := range cases {
		if got := FormatNumber(in); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatUSD(t *testing.T) {
	cases := map[float64]string{
		0: "$0.00", 0.004: "$0.004", 23.5: "$23.50", 999.994: "$999.99", 1000: "$1,000",
		40123.6: "$40,124", 16128000: "$16,128,000", -12.5: "-$12.50",
	}
	for in, want := range cases {
		if got := FormatUSD(in); got != want {
			t.Errorf("FormatUSD(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatCountShowsRangeOnlyWhenItDiffers(t *testing.T) {
	if got := formatCount(plan.Exact(200), FormatNumber); got != "200" {
		t.Errorf("exact count = %q", got)
	}
	if got := formatCount(plan.Count{Low: 39, Expected: 107, High: 107}, FormatNumber); got != "107 (39 – 107)" {
		t.Errorf("range count = %q", got)
	}
	// Differences below the rounding are not shown.
	if got := formatCount(plan.Count{Low: 1000.2, Expected: 1000.3, High: 1000.4}, FormatNumber); got != "1,000" {
		t.Errorf("rounded count = %q", got)
	}
}

// twoPhasePlan is a hand-made plan: 10 seed runs on one environment, then an
// RL phase whose real runs depend on a routed fraction.
func twoPhasePlan() *plan.Plan {
	at := diag.Range{Filename: "x.hcl", Start: diag.Pos{Line: 40, Column: 15}}
	return &plan.Plan{Name: "x", Variants: []*plan.Variant{{
		Name:     "default",
		Prices:   map[string]float64{"H100": 2},
		Envs:     []*plan.Environment{{Name: "e", GPU: "H100", GPUs: 2, Hours: plan.Exact(3), GPUHours: plan.Exact(6)}},
		Roles:    []*plan.Role{{Name: "critic", Kind: "critic", TokensIn: plan.Exact(1000), TokensOut: plan.Exact(100), PriceIn: 1, PriceOut: 10, Concurrency: 4, Seconds: 36}},
		Loops:    []*plan.Loop{{Name: "policy", Kind: "rl", Steps: plan.Count{Low: 5, Expected: 10, High: 10}}},
		Executor: plan.Executor{Kind: "local", Concurrency: 8, GPUs: 4},
		Budget:   plan.Budget{RealRuns: 100, Source: map[string]diag.Range{"real_runs": at}},
		Phases: []*plan.Phase{
			{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: &plan.SeedRecordsBody{}, Calls: plan.Calls{RealRuns: map[string]plan.Count{"e": plan.Exact(10)}}},
			{Name: "rl.policy", Kind: plan.PhaseRL, RL: &plan.RLBody{Loop: "policy"}, Calls: plan.Calls{
				RealRuns:   map[string]plan.Count{"e": {Low: 40, Expected: 50, High: 80}},
				LLM:        map[string]plan.Count{"critic": plan.Exact(400)},
				Candidates: plan.Exact(100),
			}},
		},
	}}}
}

func TestEstimateArithmetic(t *testing.T) {
	r := Estimate(twoPhasePlan())
	want := Totals{
		RealRuns:  plan.Count{Low: 50, Expected: 60, High: 90},
		GPUHours:  plan.Count{Low: 300, Expected: 360, High: 540},
		USDGPU:    plan.Count{Low: 600, Expected: 720, High: 1080},
		LLMCalls:  plan.Exact(400),
		LLMTokens: plan.Exact(440000),
		// 400 x (1000 x $1 + 100 x $10) / 1e6 = $0.80
		USDLLM: plan.Exact(0.8),
		USD:    plan.Count{Low: 600.8, Expected: 720.8, High: 1080.8},
		// runs x 3 h / min(8, 4 GPUs / 2 per run = 2) + 400 x 36 s / 3600 / 4
		WallHours: plan.Count{Low: 50*1.5 + 1, Expected: 60*1.5 + 1, High: 90*1.5 + 1},
	}
	got := r.Totals
	for _, c := range []struct {
		name      string
		got, want plan.Count
	}{
		{"real_runs", got.RealRuns, want.RealRuns}, {"gpu_hours", got.GPUHours, want.GPUHours},
		{"usd_gpu", got.USDGPU, want.USDGPU}, {"llm_calls", got.LLMCalls, want.LLMCalls},
		{"llm_tokens", got.LLMTokens, want.LLMTokens}, {"usd_llm", got.USDLLM, want.USDLLM},
		{"usd", got.USD, want.USD}, {"wall_hours", got.WallHours, want.WallHours},
	} {
		if !near(c.got.Low, c.want.Low) || !near(c.got.Expected, c.want.Expected) || !near(c.got.High, c.want.High) {
			t.Errorf("totals.%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if l := r.Loops["policy"]; l.Candidates != plan.Exact(100) || l.RealRuns.Expected != 50 || l.Steps.Low != 5 {
		t.Errorf("loops.policy = %+v", l)
	}
	if g := r.GPUHoursByType["H100"]; g.Expected != 360 {
		t.Errorf("gpu_hours_by_type.H100 = %+v", g)
	}
}

func TestCheckCaps(t *testing.T) {
	r := Estimate(twoPhasePlan())
	at := diag.Range{Filename: "x.hcl", Start: diag.Pos{Line: 40, Column: 15}}
	cases := []struct {
		name     string
		budget   plan.Budget
		code     string
		severity diag.Severity
		contains string
	}{
		{"expected breaks", plan.Budget{RealRuns: 55, Source: map[string]diag.Range{"real_runs": at}}, CodeCapExceeded, diag.Error, "expected 60 real runs, cap 55, over by 5"},
		{"only high breaks", plan.Budget{RealRuns: 80}, CodeCapAtRisk, diag.Warning, "up to 90"},
		{"dollars", plan.Budget{USD: 500}, CodeCapExceeded, diag.Error, "expected $720.80, cap $500.00"},
		{"gpu hours", plan.Budget{GPUHours: 350}, CodeCapExceeded, diag.Error, "budget.gpu_hours"},
		{"wall hours", plan.Budget{WallHours: 100}, CodeCapAtRisk, diag.Warning, "budget.wall_hours"},
		{"fits", plan.Budget{RealRuns: 90, USD: 2000}, "", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := r.CheckCaps(c.budget)
			if c.code == "" {
				if len(ds) != 0 {
					t.Fatalf("want no diagnostics, got %v", ds)
				}
				return
			}
			if len(ds) != 1 || ds[0].Code != c.code || ds[0].Severity != c.severity || !strings.Contains(ds[0].Summary, c.contains) {
				t.Fatalf("got %v, want one %s %v containing %q", ds, c.code, c.severity, c.contains)
			}
			if src, ok := c.budget.Source["real_runs"]; ok && ds[0].Range != src {
				t.Errorf("range = %v, want the cap's %v", ds[0].Range, src)
			}
		})
	}
}

func TestSweepSumsVariants(t *testing.T) {
	p := twoPhasePlan()
	v2 := *p.Variants[0]
	v2.Name = "votes=8"
	p.Variants[0].Name = "votes=4"
	p.Variants = append(p.Variants, &v2)
	r := Estimate(p)
	if len(r.Variants) != 2 {
		t.Fatalf("variants = %d, want 2", len(r.Variants))
	}
	if r.Totals.RealRuns.Expected != 120 || r.Roles["critic"].Calls.Expected != 800 {
		t.Errorf("summed totals = %+v, critic calls %+v", r.Totals.RealRuns, r.Roles["critic"].Calls)
	}
	ds := r.CheckCaps(plan.Budget{RealRuns: 55})
	// Both variants break the cap by the same figures: one error names both.
	if len(ds) != 1 || !strings.Contains(ds[0].Summary, "variants votes=4; votes=8") {
		t.Errorf("caps per variant = %v", ds)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	vs := m["variants"].([]any)
	if vs[0].(map[string]any)["totals"].(map[string]any)["real_runs"].(map[string]any)["expected"] != 60.0 {
		t.Errorf("variants[0].totals.real_runs = %v", vs[0])
	}
}

// The renderers are compared with golden files; -update rewrites them.
func TestRenderGolden(t *testing.T) {
	r := Estimate(twoPhasePlan())
	for name, write := range map[string]func(*bytes.Buffer) error{
		"table.txt":   func(b *bytes.Buffer) error { return WriteTable(b, r) },
		"report.md":   func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
		"report.json": func(b *bytes.Buffer) error { return WriteJSON(b, r) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		path := "testdata/" + name
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs (run go test -update to accept):\n%s", path, b.String())
		}
	}
}

// The JSON keys are the documented shape.
func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, Estimate(twoPhasePlan())); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	totals := m["totals"].(map[string]any)
	for _, k := range []string{"real_runs", "gpu_hours", "usd", "usd_gpu", "usd_llm", "llm_calls", "llm_tokens", "wall_hours"} {
		c, ok := totals[k].(map[string]any)
		if !ok || c["low"] == nil || c["expected"] == nil || c["high"] == nil {
			t.Errorf("totals.%s = %v, want {low, expected, high}", k, totals[k])
		}
	}
	role := m["roles"].(map[string]any)["critic"].(map[string]any)
	for _, k := range []string{"calls", "tokens_in", "tokens_out", "usd"} {
		if role[k] == nil {
			t.Errorf("roles.critic.%s missing", k)
		}
	}
	if m["loops"].(map[string]any)["policy"].(map[string]any)["steps"] == nil {
		t.Error("loops.policy.steps missing")
	}
	if m["environments"].(map[string]any)["e"].(map[string]any)["real_runs"] == nil {
		t.Error("environments.e.real_runs missing")
	}
	if m["gpu_hours_by_type"].(map[string]any)["H100"] == nil {
		t.Error("gpu_hours_by_type.H100 missing")
	}
}

// Hours per run and tokens per call given as ranges spread GPU-hours,
// dollars, tokens and wall-clock hours: low by low, high by high.
func TestEstimateSpreadsAssumedFigures(t *testing.T) {
	p := twoPhasePlan()
	v := p.Variants[0]
	v.Envs[0].Hours = plan.Count{Low: 2, Expected: 3, High: 6}
	v.Envs[0].GPUHours = v.Envs[0].Hours.Scale(2)
	v.Roles[0].TokensIn = plan.Count{Low: 500, Expected: 1000, High: 2000}
	tot := Estimate(p).Totals
	for _, c := range []struct {
		name      string
		got, want plan.Count
	}{
		{"gpu_hours", tot.GPUHours, plan.Count{Low: 50 * 4, Expected: 60 * 6, High: 90 * 12}},
		{"usd_gpu", tot.USDGPU, plan.Count{Low: 50 * 4 * 2, Expected: 60 * 6 * 2, High: 90 * 12 * 2}},
		{"llm_tokens", tot.LLMTokens, plan.Count{Low: 400 * 600, Expected: 400 * 1100, High: 400 * 2100}},
	} {
		if !near(c.got.Low, c.want.Low) || !near(c.got.Expected, c.want.Expected) || !near(c.got.High, c.want.High) {
			t.Errorf("totals.%s = %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if w := tot.WallHours; !(w.Low < 60*1.5 && w.High >= 90*6/2) {
		t.Errorf("wall_hours = %+v, want the runs' 2 to 6 hours spread over it", w)
	}
}

// The runtime keeps the GPU-hour and dollar caps, so a high figure is the
// cap at most; the cap check still sees the figure before the clamp.
func TestEstimateHighIsCapped(t *testing.T) {
	p := twoPhasePlan()
	p.Variants[0].Budget.GPUHours = 500
	p.Variants[0].Budget.USD = 900
	r := Estimate(p)
	if g := r.Totals.GPUHours; g.High != 500 || g.Expected != 360 {
		t.Errorf("gpu_hours = %+v, want high capped at 500", g)
	}
	if u := r.Totals.USD; u.High != 900 || !near(u.Expected, 720.8) {
		t.Errorf("usd = %+v, want high capped at 900", u)
	}
	if e := r.Environments["e"].GPUHours; e.High != 500 {
		t.Errorf("environments.e.gpu_hours = %+v, want high capped at 500", e)
	}
	ds := r.CheckCaps(p.Variants[0].Budget)
	var atRisk int
	for _, d := range ds {
		if d.Code == CodeCapAtRisk {
			atRisk++
		}
	}
	if atRisk != 2 {
		t.Errorf("want two caps at risk (GPU-hours up to 540, dollars up to 1,080.8):\n%s", ds.Format(0))
	}
}
