package compiler

import (
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// Each refusal of a field that would do nothing, at the field: the case
// edits base.hcl, and the diagnostic must carry the code on the line of the
// text marked with "<-" (the marker is removed before compiling).
func TestAppliesRefusals(t *testing.T) {
	cases := []struct {
		name string
		muts [][2]string
		code string
	}{
		{"clip no formula reads", [][2]string{{`  infeasible = "-1"` + "\n}", `  infeasible = "-1"` + "\n  clip = 2 <-\n}"}}, CodeClipUnused},
		{"c read without clip", [][2]string{{`  infeasible = "-1"` + "\n}", `  infeasible = "-c" <-` + "\n}"}}, CodeMissing},
		{"normalize no formula reads", [][2]string{{`  source     = "real"`, `  source     = "real"` + "\n  normalize = \"none\" <-"}}, CodeNormalizeUnused},
		{"diversity no formula reads", [][2]string{{`  source     = "real"`, `  source     = "real"` + "\n  diversity { <-\n    weight = 0.2\n  }"}}, CodeDiversityUnused},
		{"diversity without weight", [][2]string{{`  value      = "gain > 0 ? 1 : -1"`, `  value      = "(gain > 0 ? 1 : -1) + diversity_bonus"` + "\n  diversity { <-\n  }"}}, CodeMissing},
		{"diversity_bonus without block", [][2]string{{`  value      = "gain > 0 ? 1 : -1"`, `  value      = "(gain > 0 ? 1 : -1) + diversity_bonus" <-`}}, CodeMissing},
		{"tie with one vote", [][2]string{{"  votes           = 15\n", "  votes           = 1\n  tie = \"lose\" <-\n"}}, CodeTieUnused},
		{"tie with odd mean_rank", [][2]string{{"  votes           = 15\n", "  votes           = 15\n  aggregate = \"mean_rank\"\n  tie = \"lose\" <-\n"}}, CodeTieUnused},
		{"threshold the route ignores", [][2]string{{"  threshold       = 0.25\n", "  threshold       = 0.25 <-\n  route = \"mean_rank > 1\"\n"}}, CodeThresholdUnused},
		{"screen without threshold or route", [][2]string{{`critic "screen" {`, `critic "screen" { <-`}, {"  threshold       = 0.25\n", ""}}, CodeMissing},
		{"slurm block on a local executor", [][2]string{{"budget {", "executor {\n  kind = \"local\"\n  slurm { <-\n    partition = \"gpu\"\n  }\n}\n\nbudget {"}}, CodeSlurmLocal},
		{"reward of no loop", [][2]string{{"records {", "reward \"spare\" { <-\n  source     = \"real\"\n  value      = \"gain\"\n  infeasible = \"-1\"\n}\n\nrecords {"}}, CodeUnusedBlock},
		{"critic of no loop", [][2]string{{"  screen              = critic.screen\n", ""}, {`critic "screen" {`, `critic "screen" { <-`}}, CodeUnusedBlock},
		{"environment scale every task overrides", [][2]string{{"  family  = \"diffusion\"\n", "  family  = \"diffusion\"\n  scale   = 0.05 <-\n"}}, CodeShadowed},
		{"preset that fills nothing", [][2]string{{"  preset              = \"grpo\"\n", "  preset              = \"grpo\" <-\n  kind = \"rl\"\n  algorithm = \"grpo\"\n  rollout_every = 1\n  zero_variance = \"keep\"\n  split = \"train\"\n"}}, CodePresetUnused},
		{"new parent where states are histories", [][2]string{{"  reward              = reward.rwm_gain\n", "  reward              = reward.rwm_gain\n  new_parent = \"all_improve\" <-\n"}}, CodeNotApplicable},
		{"repairs without a builder", [][2]string{{"role \"builder\" {", "role \"summarizer\" {"},
			{"  reward              = reward.rwm_gain\n", "  reward              = reward.rwm_gain\n  repairs = 3 <-\n"}}, CodeNotApplicable},
		{"verify_routed on an RL loop", [][2]string{{"  reward              = reward.rwm_gain\n", "  reward              = reward.rwm_gain\n  verify_routed = true <-\n"}}, CodeLoopField},
		// The critic-only ablation labels rewards and routes nothing.
		{"threshold on a labelling critic", [][2]string{
			{"  screen              = critic.screen\n", ""},
			{`  source     = "real"`, `  source     = "critic"` + "\n  predictor  = critic.screen"},
			{"  threshold       = 0.25\n", "  threshold       = 0.25 <-\n"}}, CodeUnscreened},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := readBase(t)
			for _, m := range c.muts {
				src, _ = mutate(t, src, m[0], m[1])
			}
			i := strings.Index(src, " <-")
			if i < 0 {
				t.Fatal("no <- marker in the case")
			}
			line := strings.Count(src[:i], "\n") + 1
			src = strings.Replace(src, " <-", "", 1)
			_, ds := compileSource(t, "case.hcl", []byte(src))
			for _, d := range ds {
				if d.Code == c.code && d.Range.Start.Line == line && d.Range.Filename == "case.hcl" {
					return
				}
			}
			t.Fatalf("want %s at case.hcl:%d, got:\n%s", c.code, line, ds.Format(0))
		})
	}
}

// What the runtime runs is not refused: a critic-only ablation
// (a critic labels rewards, nothing is routed, expected_routed = 0), and an
// evolution loop with no critic.
func TestAppliesAllows(t *testing.T) {
	ablation := [][2]string{
		{"  screen              = critic.screen\n", ""},
		{`  source     = "real"`, `  source     = "critic"` + "\n  predictor  = critic.screen"},
		{"  threshold       = 0.25\n  expected_routed = 0.363\n", "  expected_routed = 0\n"},
	}
	src := readBase(t)
	for _, m := range ablation {
		src, _ = mutate(t, src, m[0], m[1])
	}
	if _, ds := compileSource(t, "ablation.hcl", []byte(src)); ds.HasErrors() {
		t.Errorf("critic-only ablation refused:\n%s", ds.Format(0))
	}
	evo := specSource(t, "quickstart-critic.hcl")
	evo, _ = mutate(t, evo, "  screen                  = critic.screen\n", "")
	evo, _ = mutate(t, evo, evo[strings.Index(evo, `critic "screen" {`):strings.Index(evo, `loop "evolve"`)], "")
	evo = strings.Replace(evo, "role \"critic\" {", "role \"critic2\" {\n  kind = \"critic\"", 1)
	// Without a screen nothing chooses among ideas: ideas_per_round = 6 of
	// which 5 are thrown away is refused, and left out the loop makes the
	// one idea it verifies.
	_, ds := compileSource(t, "evolve.hcl", []byte(evo))
	if _, line := mutate(t, evo, "  ideas_per_round         = 6\n", "  ideas_per_round         = 6\n"); len(ds) == 0 || ds[0].Code != CodeNotApplicable || ds[0].Range.Start.Line != line {
		t.Errorf("want %s at ideas_per_round (line %d) of an unscreened evolution loop, got:\n%s", CodeNotApplicable, line, ds.Format(0))
	}
	evo, _ = mutate(t, evo, "  ideas_per_round         = 6\n", "")
	p, ds := compileSource(t, "evolve.hcl", []byte(evo))
	if ds.HasErrors() {
		t.Errorf("evolution without a critic refused:\n%s", ds.Format(0))
	} else if l := p.Variants[0].Loops[0]; l.Ideas != l.Verifications {
		t.Errorf("an unscreened loop makes %d ideas per round, want the %d it verifies", l.Ideas, l.Verifications)
	}
	// Random verification ignores a screen's verdicts.
	evo = specSource(t, "quickstart-critic.hcl")
	evo, line := mutate(t, evo, "  screen                  = critic.screen\n", "  screen                  = critic.screen\n  select = \"random\"\n")
	_, ds = compileSource(t, "evolve.hcl", []byte(evo))
	if len(ds) == 0 || ds[0].Code != CodeConflict || ds[0].Range.Start.Line != line+1 {
		t.Errorf("want %s at select = \"random\" (line %d) of a screened evolution loop, got:\n%s", CodeConflict, line+1, ds.Format(0))
	}
	// An evolution screen keeps its threshold, which decides ties and the
	// routed count, but not expected_routed, which nothing reads there.
	evo = specSource(t, "quickstart-critic.hcl")
	evo, line = mutate(t, evo, "  threshold = 0.25\n", "  threshold = 0.25\n  expected_routed = 0.3\n")
	_, ds = compileSource(t, "evolve.hcl", []byte(evo))
	if len(ds) == 0 || ds[0].Code != CodeUnscreened || ds[0].Range.Start.Line != line+1 {
		t.Errorf("want %s at expected_routed (line %d) of an evolution screen, got:\n%s", CodeUnscreened, line+1, ds.Format(0))
	}
}

// A field that takes effect in some variants of a sweep is not an error:
// the variants that ignore it are named in a warning. Only when no variant
// reads it does its own error stand (the papers' critic sweep, k in
// {1, 4, 8, 16, 32}, sets tie for the even k).
func TestAppliesInSomeVariants(t *testing.T) {
	tie := [2]string{"  votes           = 15\n", "  votes           = 1\n  tie = \"lose\" <-\n"}
	sweep := func(axes string) [2]string { return [2]string{"budget {", "sweep {\n" + axes + "}\n\nbudget {"} }
	cases := []struct {
		name     string
		muts     [][2]string
		code     string
		variants string // in the warning; "" for an error
	}{
		{"tie ignored at k = 1", [][2]string{tie, sweep("  axis \"critic.screen.votes\" {\n    values = [1, 4, 8, 16, 32]\n  }\n")}, CodeVariantsIgnore, "1 of 5 variants ignore this (votes=1)"},
		{"tie ignored in every variant", [][2]string{tie, sweep("  axis \"critic.screen.threshold\" {\n    values = [0.2, 0.3]\n  }\n")}, CodeTieUnused, ""},
		{"swept tie ignored in every variant", [][2]string{{"  votes           = 15\n", "  votes           = 1\n"},
			sweep("  axis \"critic.screen.tie\" {\n    values = [\"lose\", <- \"route\"]\n  }\n")}, CodeTieUnused, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := readBase(t)
			for _, m := range c.muts {
				src, _ = mutate(t, src, m[0], m[1])
			}
			i := strings.Index(src, " <-")
			line := strings.Count(src[:i], "\n") + 1
			src = strings.Replace(src, " <-", "", 1)
			p, ds := compileSource(t, "case.hcl", []byte(src))
			if (p != nil) != (c.variants != "") {
				t.Fatalf("plan %v, want one only for a warning:\n%s", p != nil, ds.Format(0))
			}
			n := 0
			for _, d := range ds {
				if d.Code == CodeTieUnused || d.Code == CodeVariantsIgnore {
					n++
					if d.Code != c.code || d.Range.Start.Line != line || !strings.Contains(d.Summary, c.variants) {
						t.Errorf("got %s at line %d: %s; want %s at line %d naming %q", d.Code, d.Range.Start.Line, d.Summary, c.code, line, c.variants)
					}
				}
			}
			if n == 0 {
				t.Fatalf("want %s at case.hcl:%d, got:\n%s", c.code, line, ds.Format(0))
			}
		})
	}
}

// A reward's clip and normalize take effect in the calibration that
// compares its loop's gains even when no formula reads c or scale: the
// applies pass allows them where the plan's calibration states them, and
// refuses them without the calibration.
func TestCalibrationStatesTheRewardItAllows(t *testing.T) {
	src, _ := mutate(t, readBase(t), `  value      = "clip(predicted_gain / scale, -c, c)"`+"\n  infeasible = \"-c\"", `  value      = "predicted_gain"`+"\n  infeasible = \"-1\"")
	p, ds := compileSource(t, "calibrated.hcl", []byte(src))
	if ds.HasErrors() || p == nil {
		t.Fatalf("a calibrated reward whose formulas read neither c nor scale:\n%s", ds.Format(0))
	}
	if rl := p.Variants[0].PhaseOf(plan.PhaseRL); rl == nil || rl.RL.Loop != "policy" || rl.RL.Calibration == nil || rl.RL.Calibration.Normalize != "scale" || rl.RL.Calibration.Clip != 6 {
		c := rl.RL.Calibration
		t.Errorf("plan calibration %+v, want the rwm_gain reward's normalize scale and clip 6", c)
	}
	uncal, _ := mutate(t, src, "calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", "")
	_, ds = compileSource(t, "uncalibrated.hcl", []byte(uncal))
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	if !slices.Contains(codes, CodeClipUnused) || !slices.Contains(codes, CodeNormalizeUnused) {
		t.Errorf("the reward uncalibrated: codes %v, want %s and %s", codes, CodeClipUnused, CodeNormalizeUnused)
	}
}
