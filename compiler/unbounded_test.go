package compiler

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/lang/diag"
)

// untilBudgetSpec is base.hcl with its policy loop spending a budget of
// 1000 real runs on candidates the critic screens, its routed share set to
// routed; edits apply on top.
func untilBudgetSpec(t *testing.T, routed string, edits ...[2]string) (string, int) {
	t.Helper()
	src := readBase(t)
	for _, r := range [][2]string{
		{screenedLoop, ""},
		{"rollout_every       = 8", "rollout_every       = 2"},
		{"reward              = reward.rwm_gain", "reward              = reward.rwm_gain\n  screen              = critic.screen"},
		{"source     = \"predicted\"\n  predictor  = role.rwm", "source     = \"real\""},
		{"calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", ""},
		{"expected_routed = 0.363", "expected_routed = " + routed},
		{"real_runs = 40", "real_runs = 1000"},
	} {
		src, _ = mutate(t, src, r[0], r[1])
	}
	var line int
	src, line = mutate(t, src, "steps               = 24", "until_budget        = true")
	for _, e := range edits {
		src, _ = mutate(t, src, e[0], e[1])
	}
	return src, line
}

func unboundedWarnings(ds diag.Diagnostics) []*diag.Diagnostic {
	var out []*diag.Diagnostic
	for _, d := range ds {
		if d.Code == CodeUnbounded {
			out = append(out, d)
		}
	}
	return out
}

// A loop that spends the budget, and at the low end of whose routed share
// no candidate is routed, may never spend it: its steps, LLM calls and
// LLM dollars have no upper bound. The estimate says so (JSON high null
// with a reason, "unbounded" in the table), and validate warns at
// until_budget; real runs stay bounded by the cap.
func TestUnboundedLoop(t *testing.T) {
	src, line := untilBudgetSpec(t, "{ low = 0, expected = 0.363, high = 1 }")
	p, ds := compileSource(t, "case.hcl", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	ws := unboundedWarnings(ds)
	if len(ws) != 1 {
		t.Fatalf("want one %s warning, got:\n%s", CodeUnbounded, ds.Format(0))
	}
	if ws[0].Range.Start.Line != line || ws[0].Range.Filename != "case.hcl" {
		t.Errorf("warning at %v, want case.hcl line %d (until_budget)", ws[0].Range, line)
	}
	l := p.Variants[0].Loops[0]
	if l.Steps.Bounded() || l.Steps.Reason == "" {
		t.Errorf("loop steps = %+v, want unbounded with a reason", l.Steps)
	}
	if l.Steps.Expected != 42 {
		t.Errorf("expected steps = %v, want 42 (as with a bounded routed share)", l.Steps.Expected)
	}
	if l.RunSteps != 0 {
		t.Errorf("run_steps = %d, want 0: only the budget stops the loop", l.RunSteps)
	}
	r := estimate.Estimate(p)
	if r.Totals.LLMCalls.Bounded() || r.Totals.USDLLM.Bounded() || r.Totals.LLMTokens.Bounded() {
		t.Errorf("LLM calls %+v, LLM dollars %+v, tokens %+v: want unbounded", r.Totals.LLMCalls, r.Totals.USDLLM, r.Totals.LLMTokens)
	}
	if !r.Totals.RealRuns.Bounded() || r.Totals.RealRuns.High > 1000 {
		t.Errorf("real runs = %+v, want bounded by the cap of 1000", r.Totals.RealRuns)
	}
	if !r.Totals.GPUHours.Bounded() {
		t.Errorf("GPU-hours = %+v, want bounded (real runs are)", r.Totals.GPUHours)
	}

	var js bytes.Buffer
	if err := estimate.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Totals map[string]map[string]any `json:"totals"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	calls := doc.Totals["llm_calls"]
	if h, ok := calls["high"]; !ok || h != nil {
		t.Errorf("JSON totals.llm_calls.high = %v (present %v), want null", h, ok)
	}
	if reason, _ := calls["reason"].(string); !strings.Contains(reason, "loop policy") {
		t.Errorf("JSON totals.llm_calls.reason = %q, want one that names loop policy", reason)
	}
	if _, ok := doc.Totals["real_runs"]["reason"]; ok || doc.Totals["real_runs"]["high"] == nil {
		t.Errorf("JSON totals.real_runs = %v, want a bounded figure", doc.Totals["real_runs"])
	}
	var table, md bytes.Buffer
	if err := estimate.WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if err := estimate.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": table.String(), "markdown": md.String()} {
		if !strings.Contains(out, "unbounded") {
			t.Errorf("%s does not say unbounded:\n%s", name, out)
		}
	}
}

// max_steps, or a dollar cap that every refresh spends some of, bounds the
// same loop; so does a routed share whose low end still routes.
func TestBoundedLoop(t *testing.T) {
	open := "{ low = 0, expected = 0.363, high = 1 }"
	for _, c := range []struct {
		name   string
		routed string
		edits  [][2]string
		steps  float64 // the high step count wanted
	}{
		{"max_steps", open, [][2]string{{"until_budget        = true", "until_budget        = true\n  max_steps           = 50"}}, 50},
		// A refresh proposes 128 candidates, each a proposer and a builder
		// call; their cheapest tokens at their prices bound the refreshes
		// a dollar cap buys.
		{"dollar cap", open, [][2]string{{"real_runs = 1000", "real_runs = 1000\n  usd       = 100000"}}, math.NaN()},
		{"routed share that routes", "0.25", nil, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, _ := untilBudgetSpec(t, c.routed, c.edits...)
			p, ds := compileSource(t, "case.hcl", []byte(src))
			if ds.HasErrors() {
				t.Fatal(ds.Format(0))
			}
			if ws := unboundedWarnings(ds); len(ws) != 0 {
				t.Errorf("unexpected %s:\n%s", CodeUnbounded, ds.Format(0))
			}
			steps := p.Variants[0].Loops[0].Steps
			if !steps.Bounded() || (!math.IsNaN(c.steps) && steps.High != c.steps) {
				t.Errorf("steps = %+v, want bounded, high %v", steps, c.steps)
			}
			if run := p.Variants[0].Loops[0].RunSteps; float64(run) != math.Floor(steps.High) {
				t.Errorf("run_steps = %d, want the high step count %v", run, steps.High)
			}
			tot := estimate.Estimate(p).Totals
			for name, x := range map[string]interface{ Bounded() bool }{"llm_calls": tot.LLMCalls, "usd": tot.USD, "wall_hours": tot.WallHours} {
				if !x.Bounded() {
					t.Errorf("%s = %+v, want bounded", name, x)
				}
			}
		})
	}
}
