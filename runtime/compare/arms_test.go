package compare

import (
	"math"
	"testing"
)

func row(id, variant string, seed int64, gain *float64, state string) *Row {
	return &Row{ID: id, Plan: "p", Variant: variant, Seed: seed, State: state, RealRuns: 10, BestGain: gain,
		Overrides: map[string]any{"seed": seed, "critic.screen.votes": variant}}
}

func find(fs []*ArmFigure, arm, fig string) *ArmFigure {
	for _, f := range fs {
		if f.Arm == arm && f.Figure == fig {
			return f
		}
	}
	return nil
}

// Arms against hand-worked figures: arm a's gains {1, 2, 3} (mean 2, sd 1,
// 95% interval 2 ± 4.3027/√3 = 2 ± 2.4841), arm b's {4, 5, 6, 7} (mean
// 5.5; Welch difference 3.5 ± 2.2321, marked), arm c of one seed (no
// interval, its difference unmarked); a running run is left out, and a
// figure no run measured is absent.
func TestArms(t *testing.T) {
	var rows []*Row
	for i, g := range []float64{1, 2, 3} {
		rows = append(rows, row("a", "a", int64(i+1), ptr(g), "finished"))
	}
	for i, g := range []float64{4, 5, 6, 7} {
		rows = append(rows, row("b", "b", int64(i+1), ptr(g), "finished"))
	}
	rows = append(rows, row("c", "c", 1, ptr(9), "finished"), row("a4", "a", 4, ptr(100), "running"))
	fs := Arms(rows)

	checkArmGains(t, fs)
	// Every seed ran 10 real runs: an exact, unmarked zero difference.
	if r := find(fs, "b", "real_runs"); r == nil || *r.SD != 0 || *r.Diff != 0 || r.Differs {
		t.Errorf("real runs: %+v", r)
	}
	if find(fs, "a", "avg_at_k") != nil {
		t.Error("a figure no run measured is summarized")
	}
}

// checkArmGains checks TestArms' best real gains: arm a's interval, arm
// b's marked difference from a, arm c's lone seed.
func checkArmGains(t *testing.T, fs []*ArmFigure) {
	t.Helper()
	a := find(fs, "a", "best_real_gain")
	if a == nil || a.N != 3 || a.Mean != 2 || a.SD == nil || *a.SD != 1 || math.Abs(*a.High-4.4841) > 1e-4 || math.Abs(*a.Low+0.4841) > 1e-4 || a.Diff != nil || a.Note != "" {
		t.Fatalf("arm a: %+v", a)
	}
	b := find(fs, "b", "best_real_gain")
	if b == nil || b.N != 4 || b.Versus != "a" || *b.Diff != 3.5 || math.Abs(*b.DiffHigh-5.7321) > 1e-4 || !b.Differs {
		t.Errorf("arm b: %+v", b)
	}
	c := find(fs, "c", "best_real_gain")
	if c == nil || c.N != 1 || c.SD != nil || c.Low != nil || c.Note != "n=1, no interval" || *c.Diff != 7 || c.DiffLow != nil || c.Differs {
		t.Errorf("arm c: %+v", c)
	}
}

// Arms are told apart by their plan, variant and overrides, never by the
// seed; two arms of one variant name are named by their overrides.
func TestArmNames(t *testing.T) {
	x := row("x", "default", 1, ptr(1), "finished")
	y := row("y", "default", 2, ptr(2), "finished")
	z := row("z", "default", 1, ptr(3), "finished")
	z.Overrides = map[string]any{"seed": 1, "loop.evolve.rounds": 3}
	fs := Arms([]*Row{x, y, z})
	got := map[string]int{}
	for _, f := range fs {
		if f.Figure == "best_real_gain" {
			got[f.Arm] = f.N
		}
	}
	if len(got) != 2 || got["default (critic.screen.votes=default)"] != 2 || got["default (loop.evolve.rounds=3)"] != 1 {
		t.Errorf("arms: %v", got)
	}
}
