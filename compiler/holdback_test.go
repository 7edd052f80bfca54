package compiler

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
)

// Every spec's plan holds back, under each cap, at least the later phases'
// low figures, and never so many real runs that a phase and those before
// it lose room for their own low figures: a cap the high figures break
// (W_CAP_AT_RISK) shrinks the later phases, never starves an earlier one.
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
		low, _ := phaseSpend(v, ph)
		lowSoFar += low.runs
		if ph.Kind == plan.PhaseCalibration {
			if ph.HoldBack != nil {
				t.Errorf("%s: calibration phase %s has a hold-back of its own", name, ph.Name)
			}
			continue
		}
		hb := ph.HoldBack
		if hb == nil {
			t.Errorf("%s: phase %s has no hold_back", name, ph.Name)
			continue
		}
		var lowLater spend
		for _, later := range v.Phases[i+1:] {
			if slices.Contains(ph.Calibrations, later.Name) {
				l, _ := phaseSpend(v, later)
				lowSoFar += l.runs
				continue
			}
			l, _ := phaseSpend(v, later)
			lowLater = lowLater.add(l)
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
		if v.Budget.USD > 0 && hb.USD < nano(lowLater.usd)-1e-9 || v.Budget.USD == 0 && hb.USD != 0 {
			t.Errorf("%s: phase %s holds back %g dollars; the later phases' low is %g, the cap %g", name, ph.Name, hb.USD, lowLater.usd, v.Budget.USD)
		}
		if v.Budget.GPUHours > 0 && hb.GPUHours < nano(lowLater.gpuHours)-1e-9 || v.Budget.GPUHours == 0 && hb.GPUHours != 0 {
			t.Errorf("%s: phase %s holds back %g GPU-hours; the later phases' low is %g, the cap %g", name, ph.Name, hb.GPUHours, lowLater.gpuHours, v.Budget.GPUHours)
		}
	}
}
