package compiler

import (
	"fmt"
	"github.com/assay-lang/assay/compiler/estimate"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// baselinesOf returns the tasks of a plan's baselines phase ("env/task"),
// checking the phase is first and counts one real run per task.
func baselinesOf(t *testing.T, p *plan.Plan) string {
	t.Helper()
	var out []string
	for i, ph := range p.Variants[0].Phases {
		if ph.Kind != plan.PhaseBaselines {
			continue
		}
		if i != 0 {
			t.Errorf("baselines phase is phase %d, want the first", i)
		}
		runs := map[string]float64{}
		for _, tr := range ph.Baselines.Tasks {
			out = append(out, tr.Env+"/"+tr.Task)
			runs[tr.Env]++
		}
		for env, n := range runs {
			if ph.Calls.RealRuns[env] != plan.Exact(n) {
				t.Errorf("baselines phase counts %+v real runs of %s, want %g", ph.Calls.RealRuns[env], env, n)
			}
		}
		if len(ph.Calls.RealRuns) != len(runs) || len(ph.Calls.LLM) != 0 {
			t.Errorf("baselines phase calls = %+v", ph.Calls)
		}
	}
	return strings.Join(out, " ")
}

// Which tasks get a baseline run: those of a split some phase runs for real,
// with no baseline declared on the task or its environment and no benchmark.
// In base.hcl olmo3 declares its baseline and mdm (t1 train, t2 holdout)
// does not; seed records run on train, evaluation on holdout.
func TestBaselineTasks(t *testing.T) {
	const noEval = "evaluation {\n  avg_at  = 2\n  best_at = 4\n}\n"
	cases := []struct {
		name string
		muts [][2]string
		want string
	}{
		{"base", nil, "mdm/t1 mdm/t2"},
		{"no evaluation: holdout unused", [][2]string{{noEval, ""}}, "mdm/t1"},
		{"task baseline declared", [][2]string{{"split = \"train\"\n    scale = 0.02", "split = \"train\"\n    baseline = 3.2\n    scale = 0.02"}}, "mdm/t2"},
		{"environment baseline declared", [][2]string{{"  family  = \"diffusion\"\n", "  family  = \"diffusion\"\n  baseline = 3.2\n"}}, ""},
		{"olmo3 baseline removed", [][2]string{{"  baseline = 0.98\n", ""}},
			"mdm/t1 mdm/t2 olmo3/train-01 olmo3/train-02 olmo3/train-03 olmo3/train-04 olmo3/train-05 olmo3/holdout-01 olmo3/holdout-02"},
		{"benchmark supplies them", [][2]string{
			{"plugin \"offline\" {", "plugin \"bench\" {\n  kind   = \"benchmark\"\n  source = \"builtin:bench\"\n}\n\nplugin \"offline\" {"},
			{"  family  = \"diffusion\"\n", "  family  = \"diffusion\"\n  benchmark = plugin.bench\n"}}, ""},
		// A predicted reward, no seed, no calibration, no evaluation: no
		// real run, so no baseline is read.
		{"nothing runs for real", [][2]string{{noEval, ""}, {"records {\n  seed_runs = 10\n}\n", ""},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", ""}}, ""},
		// ... unless the reward formula reads baseline.
		{"reward reads baseline", [][2]string{{noEval, ""}, {"records {\n  seed_runs = 10\n}\n", ""},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", ""},
			{"clip(predicted_gain / scale, -c, c)", "clip(predicted_gain / baseline, -c, c)"}, {"  normalize  = \"scale\"\n", ""}}, "mdm/t1"},
		// Calibration alone runs train tasks for real.
		{"calibration only", [][2]string{{noEval, ""}, {"records {\n  seed_runs = 10\n}\n", ""}}, "mdm/t1"},
		// An evaluation on train.
		{"evaluation on train", [][2]string{{"  best_at = 4\n", "  best_at = 4\n  split   = \"train\"\n"}, {"records {\n  seed_runs = 10\n}\n", ""},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", ""}}, "mdm/t1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, _ := mutate(t, readBase(t), screenedLoop, "")
			src, _ = mutate(t, src, baseCritic, "")
			for _, m := range c.muts {
				src, _ = mutate(t, src, m[0], m[1])
			}
			src = strings.Replace(src, "real_runs = 40", "real_runs = 400", 1)
			p, ds := compileSource(t, "case.hcl", []byte(src))
			if ds.HasErrors() {
				t.Fatal(ds.Format(0))
			}
			if got := baselinesOf(t, p); got != c.want {
				t.Errorf("baseline tasks = %q, want %q", got, c.want)
			}
		})
	}
}

// E_BUDGET_FIT counts baseline runs: base.hcl's fixed runs are 2 baselines
// + 10 seed + 10 calibration + 12 evaluation = 34.
func TestBudgetFitCountsBaselines(t *testing.T) {
	for _, c := range []struct {
		cap  int
		fits bool
	}{{34, true}, {33, false}} {
		src, _ := mutate(t, readBase(t), "real_runs = 40", fmt.Sprintf("real_runs = %d", c.cap))
		_, ds := compileSource(t, "case.hcl", []byte(src))
		var fit []string
		for _, d := range ds {
			if d.Code == CodeBudgetFit {
				fit = append(fit, d.Summary)
			}
		}
		if c.fits && len(fit) != 0 {
			t.Errorf("cap %d: unexpected %v", c.cap, fit)
		}
		if !c.fits && (len(fit) != 1 || !strings.Contains(fit[0], "34 (baselines 2 + seed 10")) {
			t.Errorf("cap %d: want one E_BUDGET_FIT naming 34 (baselines 2 + ...), got %v", c.cap, fit)
		}
	}
}

// until_budget takes baseline runs out of the budget first: at a cap of
// 999 the two baseline runs of mdm cost the expected scenario a refresh
// (2 steps); declaring mdm's baseline gives it back.
func TestUntilBudgetCountsBaselines(t *testing.T) {
	src := readBase(t)
	for _, r := range [][2]string{
		{screenedLoop, ""},
		{"steps               = 24", "until_budget        = true"},
		{"rollout_every       = 8", "rollout_every       = 2"},
		{"reward              = reward.rwm_gain", "reward              = reward.rwm_gain\n  screen              = critic.screen"},
		{"source     = \"predicted\"\n  predictor  = role.rwm", "source     = \"real\""},
		{"calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", ""},
		{"expected_routed = 0.363", "expected_routed = { low = 0.25, expected = 0.363, high = 0.5 }"},
		{"real_runs = 40", "real_runs = 999"},
	} {
		src, _ = mutate(t, src, r[0], r[1])
	}
	declared, _ := mutate(t, src, "  family  = \"diffusion\"\n", "  family  = \"diffusion\"\n  baseline = 3.2\n")
	// Expected scenario, 0.363 routed: 46.464 real runs per refresh of 2
	// steps. Room 999 - 2 - 10 - 12 = 975 buys 20 refreshes (929.3; 21 would
	// be 975.7); room 977 buys 21.
	for _, c := range []struct {
		name string
		src  string
		want float64
		base string
	}{{"measured", src, 40, "mdm/t1 mdm/t2"}, {"declared", declared, 42, ""}} {
		p, ds := compileSource(t, "case.hcl", []byte(c.src))
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if got := p.Variants[0].Loops[0].Steps.Expected; got != c.want {
			t.Errorf("%s: expected steps = %v, want %v", c.name, got, c.want)
		}
		if got := baselinesOf(t, p); got != c.base {
			t.Errorf("%s: baseline tasks = %q, want %q", c.name, got, c.base)
		}
		// In the expected scenario the plan fits the cap, and no figure of
		// the estimate goes past it.
		total := 0.0
		for _, ph := range p.Variants[0].Phases {
			for _, n := range ph.Calls.RealRuns {
				total += n.Expected
			}
		}
		if total > 999 {
			t.Errorf("%s: plans %v real runs, over the cap of 999", c.name, total)
		}
		if hi := estimate.Estimate(p).Totals.RealRuns.High; hi > 999 {
			t.Errorf("%s: estimates up to %v real runs, over the cap of 999", c.name, hi)
		}
	}
}
