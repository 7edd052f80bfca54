package compiler

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

// Every spec's plan holds back, under each cap, at least the later phases'
// low figures, and never so many real runs that a phase and those before
// it lose room for their own low figures: a cap the high figures break
// (W_CAP_AT_RISK) shrinks the later phases, never starves an earlier one.
// Of GPU-hours and dollars it holds back what the later phases need
// (their high figures; a loop's low), which every spec that compiles can
// pay for.
func TestHoldBackOfEverySpec(t *testing.T) {
	files, _ := filepath.Glob("../specs/*.hcl")
	laptop, _ := filepath.Glob("../specs/laptop/*.hcl")
	files = append(files, laptop...)
	if len(files) == 0 {
		t.Skip("no specs/ directory")
	}
	checked := 0
	for _, file := range files {
		s, _, ds := load.Load(file, load.Options{})
		if ds.HasErrors() {
			continue
		}
		p, _ := Compile(s, Options{})
		if p == nil {
			continue
		}
		for _, v := range p.Variants {
			checkHoldBack(t, file+" "+v.Name, v)
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no spec compiled")
	}
}

func checkHoldBack(t *testing.T, name string, v *plan.Variant) {
	t.Helper()
	var lowSoFar float64
	for i, ph := range v.Phases {
		low, _ := withRounds(v, ph)
		lowSoFar += low.runs
		hb := ph.HoldBack
		if hb == nil {
			t.Errorf("%s: phase %s has no hold_back", name, ph.Name)
			continue
		}
		var lowLater, needLater spend
		for _, later := range v.Phases[i+1:] {
			l, n := withRounds(v, later)
			lowLater, needLater = lowLater.add(l), needLater.add(n)
		}
		if c := v.Budget.RealRuns; c > 0 {
			if float64(hb.RealRuns) < math.Ceil(lowLater.runs-1e-9) {
				t.Errorf("%s: phase %s holds back %d real runs, less than the later phases' low %g", name, ph.Name, hb.RealRuns, lowLater.runs)
			}
			if room := float64(c) - math.Ceil(lowSoFar-1e-9); float64(hb.RealRuns) > math.Max(room, math.Ceil(lowLater.runs-1e-9)) {
				t.Errorf("%s: phase %s holds back %d of %d real runs, leaving the phases up to it less than their low %g", name, ph.Name, hb.RealRuns, c, lowSoFar)
			}
		} else if hb.RealRuns != 0 {
			t.Errorf("%s: phase %s holds back %d real runs under no cap", name, ph.Name, hb.RealRuns)
		}
		if v.Budget.USD > 0 && (hb.USD < nano(lowLater.usd)-1e-9 || hb.USD != nano(needLater.usd)) || v.Budget.USD == 0 && hb.USD != 0 {
			t.Errorf("%s: phase %s holds back %g dollars; the later phases' low is %g, their need %g, the cap %g", name, ph.Name, hb.USD, lowLater.usd, needLater.usd, v.Budget.USD)
		}
		if v.Budget.GPUHours > 0 && (hb.GPUHours < nano(lowLater.gpuHours)-1e-9 || hb.GPUHours != nano(needLater.gpuHours)) || v.Budget.GPUHours == 0 && hb.GPUHours != 0 {
			t.Errorf("%s: phase %s holds back %g GPU-hours; the later phases' low is %g, their need %g, the cap %g", name, ph.Name, hb.GPUHours, lowLater.gpuHours, needLater.gpuHours, v.Budget.GPUHours)
		}
	}
}

// withRounds is ph's low figures and need (phaseSpend) with those of
// the calibration rounds that run inside it, which need their high.
func withRounds(v *plan.Variant, ph *plan.Phase) (low, need spend) {
	low, _, need = phaseSpend(v, ph)
	if ph.RL != nil && ph.RL.Calibration != nil {
		for _, r := range ph.RL.Calibration.Rounds {
			l, h := callsSpend(v, r.Calls)
			low, need = low.add(l), need.add(h)
		}
	}
	return low, need
}

// A dollar cap that cannot hold back what a later phase may spend is
// refused at the cap (E_BUDGET_FIT), with the phase and the shortfall:
// laptop verify-all whose proposer is served with 3 retries (each of its
// calls holds 4 attempts at its high tokens, $0.03) and priced. The
// evaluation's 48 proposer calls may spend $1.44, the loop before it needs
// its low $0.36, so $1 (which the expected $0.72 fits) is $0.80 short. At
// $1.81 the loop holds the evaluation's $1.44 back; with no retries the
// evaluation needs $0.36, and $1 funds it.
func TestBudgetRefusesAPhaseItCannotFund(t *testing.T) {
	base, err := filepath.Abs("../specs/laptop/verify-all.hcl")
	if err != nil {
		t.Fatal(err)
	}
	compileAt := func(t *testing.T, usd string, retries int) (*plan.Plan, diag.Diagnostics) {
		t.Helper()
		src := fmt.Sprintf(`extends = %q

plugin "openai" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:9/v1", max_retries = %d }
}

role "proposer" {
  llm   = plugin.openai
  model = "base-proposer"
  price {
    in  = 10
    out = 25
  }
}

budget {
  usd = %s
}
`, base, retries, usd)
		path := filepath.Join(t.TempDir(), "s.hcl")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _, ds := load.Load(path, load.Options{})
		if ds.HasErrors() {
			t.Fatalf("does not load: %s", ds.Format(0))
		}
		return Compile(s, Options{})
	}
	p, ds := compileAt(t, "1", 3)
	var fit *diag.Diagnostic
	for _, d := range ds {
		if d.Code == CodeBudgetFit {
			fit = d
		}
	}
	if p != nil || fit == nil {
		t.Fatalf("plan %v, diagnostics\n%s\nwant %s", p != nil, ds.Format(0), CodeBudgetFit)
	}
	for _, want := range []string{"budget.usd = $1.00 cannot fund phase evaluation: it may spend $1.44 at its high figures", "the phases before it need $0.36", "$0.80 short"} {
		if !strings.Contains(fit.Summary, want) {
			t.Errorf("summary %q does not say %q", fit.Summary, want)
		}
	}
	if !strings.Contains(fit.Detail, "raise budget.usd to at least $1.81") || fit.Range.Start.Line != 19 {
		t.Errorf("at %v: %s; want it at budget.usd (line 19), saying to raise it to $1.81", fit.Range, fit.Detail)
	}
	p, ds = compileAt(t, "1.81", 3)
	if p == nil {
		t.Fatalf("$1.81 is refused:\n%s", ds.Format(0))
	}
	if hb := p.Variants[0].Phases[1].HoldBack; p.Variants[0].Phases[1].Kind != plan.PhaseRL || hb.USD < 1.44 {
		t.Errorf("phase %s holds back %+v, want the evaluation's $1.44 at least", p.Variants[0].Phases[1].Name, hb)
	}
	if p, ds = compileAt(t, "1", 0); p == nil {
		t.Errorf("without retries $1 is refused:\n%s", ds.Format(0))
	}
}
