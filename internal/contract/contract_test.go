package contract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/features/runcompare"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/load/loadtest"
	"github.com/assay-lang/assay/plugins"
	command "github.com/assay-lang/assay/plugins/builtin/command/trainer"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	tinylm "github.com/assay-lang/assay/plugins/builtin/tinylm/model"
	"github.com/assay-lang/assay/runtime"
)

type inst struct {
	t plugins.Trainer
	l plugins.LLM
}

func (i inst) Trainer() plugins.Trainer     { return i.t }
func (i inst) LLM() plugins.LLM             { return i.l }
func (i inst) Benchmark() plugins.Benchmark { return nil }
func (i inst) Close() error                 { return nil }

// loader serves the built-in plugins a spec names, in process.
func loader() runtime.Loader {
	return runtime.LoaderFunc(func(ctx context.Context, p *plan.Plugin) (runtime.Instance, error) {
		switch p.Source {
		case "builtin:tinylm":
			return inst{t: tinylm.NewTrainer()}, nil
		case "builtin:offline":
			return inst{l: offline.Model{}}, nil
		case "builtin:command":
			return inst{t: command.New(command.Options{})}, nil
		}
		return nil, fmt.Errorf("plugin %s: source %s does not run in this test", p.Name, p.Source)
	})
}

// compile loads and compiles a spec file as `assay run` does.
func compile(t *testing.T, path string) (*plan.Plan, diag.Diagnostics) {
	return compileWith(t, path, compiler.Options{})
}

func compileWith(t *testing.T, path string, opts compiler.Options) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{Overlay: laptopOverlay(t)})
	if ds.HasErrors() {
		return nil, ds
	}
	p, cds := compiler.Compile(s, opts)
	return p, append(ds, cds...)
}

// checkRun runs variant v of p and checks every measured count against
// the estimate of that variant.
func checkRun(t *testing.T, p *plan.Plan, vi int) (*runtime.Result, string) {
	t.Helper()
	return checkRunWith(t, p, vi, loader())
}

// checkRunWith is checkRun with the plugins of l.
func checkRunWith(t *testing.T, p *plan.Plan, vi int, l runtime.Loader) (*runtime.Result, string) {
	t.Helper()
	v := p.Variants[vi]
	dir := t.TempDir()
	res, err := runtime.Run(context.Background(), p, runtime.Options{ID: "c", Dir: dir, Plugins: l, Variant: v.Name})
	if err != nil {
		t.Fatalf("variant %s: run: %v", v.Name, err)
	}
	if res.State != runtime.StateFinished {
		t.Fatalf("variant %s: state %s (%s)", v.Name, res.State, res.Reason)
	}
	checkResult(t, p, vi, res)
	return res, dir
}

// checkResult checks a finished run of variant vi of p: its real runs
// under the cap, every count it measured inside the estimate.
func checkResult(t *testing.T, p *plan.Plan, vi int, res *runtime.Result) {
	t.Helper()
	v := p.Variants[vi]
	if res.Totals.Measured == nil {
		t.Fatal("the run measured nothing")
	}
	if c := v.Budget.RealRuns; c > 0 && res.Totals.RealRuns > c {
		t.Errorf("real runs %d above the cap %d", res.Totals.RealRuns, c)
	}
	rows := runcompare.Rows(p, v.Name, &res.Totals)
	if len(rows) < 4 {
		t.Fatalf("compared %d figures", len(rows))
	}
	for _, row := range rows {
		if strings.HasSuffix(row.Figure, "routed_share") {
			continue // an assumption as measured, not a count
		}
		if !row.Within {
			t.Errorf("variant %s: %s = %g, outside the estimate's [%g, %g] (expected %g)", v.Name, row.Figure, row.Measured, row.Low, row.High, row.Expected)
		}
	}
}

// learnedWithin are the quickstarts whose estimate, learned from a run's
// own measurements (estimate --from-run), must predict that run: real runs
// and LLM calls within 5%, GPU-hours and dollars within 10%.
var learnedWithin = map[string]map[string]float64{
	"quickstart.hcl":        {"totals.real_runs": 0.05, "totals.llm_calls": 0.05, "totals.gpu_hours": 0.10, "totals.usd": 0.10},
	"quickstart-critic.hcl": {"totals.real_runs": 0.05, "totals.llm_calls": 0.05, "totals.gpu_hours": 0.10, "totals.usd": 0.10},
}

// checkLearned compiles the spec at path again with what run "c" in dir
// measured in place of its assumptions, and compares the learned
// estimate's prediction with the run.
func checkLearned(t *testing.T, path string, p *plan.Plan, res *runtime.Result, dir string, tol map[string]float64) {
	t.Helper()
	v := p.Variants[0]
	tim, err := runtime.ReadTiming(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	learned := runcompare.Learn(p, v.Name, &res.Totals, tim, "c")
	lp, ds := compileWith(t, path, compiler.Options{Learned: learned})
	if ds.HasErrors() {
		t.Fatalf("learned estimate does not compile: %v", ds)
	}
	if err := runcompare.SameShape(p, lp, v.Name); err != nil {
		t.Fatal(err)
	}
	fromRun := 0
	for _, a := range lp.Variants[0].Assumptions {
		if a.From == "run c" {
			fromRun++
		}
	}
	if fromRun < 3 {
		t.Errorf("%d assumptions come from the run; want the shares, hours and tokens", fromRun)
	}
	seen := 0
	for _, row := range runcompare.Predict(lp, v.Name, p, &res.Totals, tim) {
		max, ok := tol[row.Figure]
		if !ok {
			continue
		}
		seen++
		t.Logf("%s: predicted %g, actual %g (%+.1f%%)", row.Figure, row.Predicted, row.Actual, 100*row.Error)
		if row.Actual == 0 || row.Error > max || row.Error < -max {
			t.Errorf("%s: learned estimate predicts %g, the run did %g (%+.1f%%, allowed %.0f%%)", row.Figure, row.Predicted, row.Actual, 100*row.Error, 100*max)
		}
	}
	if seen != len(tol) {
		t.Errorf("compared %d of %d figures", seen, len(tol))
	}
}

// rehearseAll is whether every spec runs as written (ASSAY_REHEARSE_ALL=1,
// as CI sets it).
var rehearseAll = os.Getenv("ASSAY_REHEARSE_ALL") == "1"

// laptopOverlay is specs/laptop's preamble with its tinylm runs cut to
// fastConfig, as fast cuts those of specs/:
// the counts under test do not depend on how long a run trains. With ASSAY_REHEARSE_ALL=1 it is none:
// the laptop specs run as written.
func laptopOverlay(t *testing.T) map[string][]byte {
	t.Helper()
	if rehearseAll {
		return nil
	}
	path := filepath.Join(specsDir(t), "laptop", "common", "preamble.hcl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const full = "config = { steps = 300 }"
	if !strings.Contains(string(b), full) {
		t.Fatalf("%s has no %q to replace", path, full)
	}
	return map[string][]byte{path: []byte(strings.Replace(string(b), full, fastConfig, 1))}
}

// specsDir is the repository's specs/ folder.
func specsDir(t *testing.T) string {
	d, err := filepath.Abs("../../specs")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fast rewrites a spec so its tinylm runs train for few steps: the counts
// under test do not depend on how long a run trains. small-local.hcl sets
// its 2,000 steps with a variable and scores the default 4,096 positions;
// it keeps both with ASSAY_REHEARSE_ALL=1.
func fast(src string) string {
	src = strings.ReplaceAll(src, "config = { steps = 600 }", fastConfig)
	if !rehearseAll {
		src = strings.Replace(src, smallLocalSteps, strings.Replace(smallLocalSteps, "2000", fastSteps, 1), 1)
		src = strings.Replace(src, smallLocalConfig, strings.Replace(smallLocalConfig, " }", ", eval_positions = "+fastPositions+" }", 1), 1)
	}
	return src
}

// fastSteps and fastPositions make a fast tinylm run: 10 optimiser
// steps, and a validation loss over 256 positions rather than 4,096. Each
// run still trains and reports a loss; only how good it is changes.
const (
	fastSteps     = "10"
	fastPositions = "256"
	fastConfig    = "config = { steps = " + fastSteps + ", eval_positions = " + fastPositions + " }"
)

const (
	smallLocalSteps  = "default     = 2000\n  description = \"tinylm optimiser steps per real run\""
	smallLocalConfig = "config = { steps = var.train_steps, corpus = \"grammar\" }"
)

// writeVariant writes the spec at base, edited, into a temporary folder.
func writeVariant(t *testing.T, base string, edits ...[2]string) string {
	t.Helper()
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	src := fast(string(b))
	for _, e := range edits {
		if !strings.Contains(src, e[0]) {
			t.Fatalf("%s has no %q to replace", base, e[0])
		}
		src = strings.Replace(src, e[0], e[1], 1)
	}
	// The copy keeps the bases it extends (specs/common) beside it.
	path := loadtest.CopySpec(t, base, t.TempDir())[0]
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// localSpecs are the specs of specs/ whose plugins run on this machine.
func localSpecs(t *testing.T) []string {
	var out []string
	entries, err := os.ReadDir(specsDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(specsDir(t), e.Name()))
		if err != nil || !strings.HasSuffix(e.Name(), ".hcl") {
			continue
		}
		s := string(b)
		if strings.Contains(s, "builtin:tinylm") && !strings.Contains(s, "builtin:command") && !strings.Contains(s, "builtin:openai") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// TestFastCutsTheLocalSpecs: fast finds what it rewrites in every local
// spec, so a changed spec cannot silently run at full length here.
func TestFastCutsTheLocalSpecs(t *testing.T) {
	if rehearseAll {
		t.Skip("with ASSAY_REHEARSE_ALL=1 the specs run as written")
	}
	for _, name := range localSpecs(t) {
		b, err := os.ReadFile(filepath.Join(specsDir(t), name))
		if err != nil {
			t.Fatal(err)
		}
		src := fast(string(b))
		steps := strings.Contains(src, "steps = "+fastSteps+",") || strings.Contains(src, "default     = "+fastSteps+"\n")
		if !steps || !strings.Contains(src, "eval_positions = "+fastPositions) {
			t.Errorf("%s: fast left its tinylm run at full length", name)
		}
	}
}

func TestSpecsRunWithinTheirEstimate(t *testing.T) {
	t.Parallel()
	names := localSpecs(t)
	if len(names) < 3 {
		t.Fatalf("found %d local specs (%v); expected the quickstarts and small-local", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := writeVariant(t, filepath.Join(specsDir(t), name))
			p, ds := compile(t, path)
			if ds.HasErrors() {
				t.Fatalf("%s does not compile: %v", name, ds)
			}
			res, dir := checkRun(t, p, 0)
			if tol, ok := learnedWithin[name]; ok {
				checkLearned(t, path, p, res, dir, tol)
			}
		})
	}
}

// screenCritic is quickstart-critic's critic block.
const screenCritic = "critic \"screen\" {\n  role      = role.critic\n  votes     = 8\n  labels    = \"3way\"\n  aggregate = \"majority\"\n  tie       = \"route\"\n  threshold = 0.25\n}\n"

// rwmReward is quickstart's reward block, which a variant replaces.
const rwmReward = "reward \"rwm_gain\" {\n  source         = \"predicted\"\n  predictor      = role.rwm\n  normalize      = \"scale\"\n  clip           = 6\n  value          = \"clip(predicted_gain / scale, -c, c) + diversity_bonus\"\n  repeat_penalty = 0.5\n  infeasible     = \"-c\"\n  diversity {\n    by     = \"mechanism\"\n    weight = 0.2\n  }\n}\n"

const (
	criticRole = `role "critic" {
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 20
  }
  price {
    in  = 0
    out = 0
  }
}

critic "judge" {
  role   = role.critic
  votes  = 5
  labels = "3way"
}

role "summarizer" {
  llm         = plugin.offline
  concurrency = 4
  tokens {
    in  = 300
    out = 80
  }
  price {
    in  = 0
    out = 0
  }
}
`
	proposerB = `role "proposer_b" {
  kind        = "proposer"
  llm         = plugin.offline
  temperature = 0.9
  concurrency = 2
  tokens {
    in  = 500
    out = 100
  }
  price {
    in  = 0
    out = 0
  }
}
`
)

// TestVariants runs variants of the specs that the papers use as baselines
// and ablations, or that a user is likely to write: each either fails to
// validate at a position, or runs within its estimate.
func TestVariants(t *testing.T) {
	t.Parallel()
	qs := filepath.Join(specsDir(t), "quickstart.hcl")
	qc := filepath.Join(specsDir(t), "quickstart-critic.hcl")
	cases := []struct {
		name   string
		base   string
		edits  [][2]string
		reject string // a diagnostic code validation must give, at a position
	}{
		{name: "evolution without a critic", base: qc, edits: [][2]string{{"  screen                  = critic.screen\n", ""}, {screenCritic, ""}, {"  ideas_per_round         = 6\n", ""}}},
		{name: "evolution without a critic throwing ideas away", base: qc, edits: [][2]string{{"  screen                  = critic.screen\n", ""}, {screenCritic, ""}}, reject: "E_NOT_APPLICABLE"},
		{name: "evolution without a critic but a critic's select rule", base: qc, edits: [][2]string{
			{"  screen                  = critic.screen\n", "  select = \"best_mean_rank\"\n"}}, reject: "E_CONFLICT"},
		{name: "evolution with k swept", base: qc, edits: [][2]string{{"budget {", "sweep {\n  axis \"critic.screen.votes\" {\n    values = [3, 5]\n  }\n}\n\nbudget {"}}},
		{name: "evolution with T swept", base: qc, edits: [][2]string{{"budget {", "sweep {\n  axis \"critic.screen.threshold\" {\n    values = [0.1, 0.5]\n  }\n}\n\nbudget {"}}},
		{name: "two proposers, the loop names one", base: qs, edits: [][2]string{
			{"role \"rwm\" {", proposerB + "\nrole \"rwm\" {"},
			{"  reward              = reward.rwm_gain\n", "  reward              = reward.rwm_gain\n  proposer            = role.proposer_b\n"},
			{"records {\n", "records {\n  proposer  = role.proposer\n"},
			{"evaluation {\n", "evaluation {\n  proposer = role.proposer_b\n"}}},
		// DAPO's dynamic sampling: dropped groups are refilled, at most two
		// rounds a step; the refill's candidates, proposer and world-model
		// calls stay within the estimate's range.
		{name: "dynamic sampling refills dropped groups", base: qs, edits: [][2]string{
			{"  learning_rate       = 0.5\n", "  learning_rate       = 0.5\n  resample_rounds     = 2\n  expected_dropped    = 0.3\n"}}},
		{name: "refill where groups are kept", base: qs, edits: [][2]string{
			{"  learning_rate       = 0.5\n", "  learning_rate       = 0.5\n  zero_variance       = \"keep\"\n  resample_rounds     = 2\n"}}, reject: "E_NOT_APPLICABLE"},
		{name: "two proposers, none named", base: qs, edits: [][2]string{{"role \"rwm\" {", proposerB + "\nrole \"rwm\" {"}}, reject: "E_ROLE_AMBIGUOUS"},
		{name: "critic-only reward", base: qs, edits: [][2]string{
			{"role \"rwm\" {", criticRole + "\nrole \"rwm\" {"},
			{rwmReward, "reward \"label\" {\n  source     = \"critic\"\n  predictor  = critic.judge\n  value      = \"label_score\"\n  infeasible = \"-1\"\n}\n"},
			{"  reward              = reward.rwm_gain\n", "  reward              = reward.label\n"},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [4, 12, 20]\n  budget      = [6]\n  select      = \"top_rated\"\n}\n", ""}}},
		{name: "critic reward with no critic named", base: qs, edits: [][2]string{
			{rwmReward, "reward \"label\" {\n  source     = \"critic\"\n  value      = \"label_score\"\n  infeasible = \"-1\"\n}\n"},
			{"  reward              = reward.rwm_gain\n", "  reward              = reward.label\n"},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [4, 12, 20]\n  budget      = [6]\n  select      = \"top_rated\"\n}\n", ""}}, reject: "E_MISSING"},
		// The offline critic routes few candidates, so the loop stops at
		// the plan's high step count, which the low routed share sets,
		// before it spends the budget: a low of 0.1, not 0.02, makes that
		// 180 steps, not 900 (a fifth of the LLM calls). The variant
		// below spends its budget.
		{name: "screened GRPO until the budget is spent", base: qs, edits: [][2]string{
			{"role \"rwm\" {", criticRole + "\nrole \"rwm\" {"},
			{"critic \"judge\" {\n  role   = role.critic\n  votes  = 5\n", "critic \"judge\" {\n  role   = role.critic\n  votes  = 5\n  threshold = 0.25\n  expected_routed = { low = 0.1, expected = 0.4, high = 1 }\n"},
			{rwmReward, "reward \"label\" {\n  source     = \"critic\"\n  value      = \"label_score\"\n  infeasible = \"-1\"\n}\n"},
			{"  steps               = 24\n", "  until_budget        = true\n  screen              = critic.judge\n"},
			{"  reward              = reward.rwm_gain\n", "  reward              = reward.label\n"},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [4, 12, 20]\n  budget      = [6]\n  select      = \"top_rated\"\n}\n", ""},
			{"records {\n  seed_runs = 16\n  select    = \"random\"\n}\n", ""},
			{"budget {\n  real_runs = 48\n", "budget {\n  real_runs = 80\n"}}},
		{name: "screened GRPO with new parents and repairs", base: qs, edits: [][2]string{
			{"role \"rwm\" {", criticRole + "\nrole \"rwm\" {"},
			{"critic \"judge\" {\n  role   = role.critic\n  votes  = 5\n", "critic \"judge\" {\n  role   = role.critic\n  votes  = 5\n  threshold = 0.25\n  expected_routed = { low = 0.02, expected = 0.4, high = 1 }\n"},
			{rwmReward, "reward \"label\" {\n  source     = \"critic\"\n  value      = \"label_score\"\n  infeasible = \"-1\"\n}\n"},
			{"  steps               = 24\n", "  until_budget        = true\n  screen              = critic.judge\n  new_parent          = \"all_improve\"\n  repairs             = 3\n"},
			{"  reward              = reward.rwm_gain\n", "  reward              = reward.label\n"},
			{"calibration {\n  loop        = loop.policy\n  after_steps = [4, 12, 20]\n  budget      = [6]\n  select      = \"top_rated\"\n}\n", ""},
			{"records {\n  seed_runs = 16\n  select    = \"random\"\n}\n", ""},
			{"budget {\n  real_runs = 48\n", "budget {\n  real_runs = 80\n"}}},
		{name: "evolution verifying routed ideas", base: qc, edits: [][2]string{
			{"  threshold = 0.25\n}", "  threshold = 0.25\n  expected_routed = { low = 0, expected = 0.3, high = 1 }\n}"},
			{"  screen                  = critic.screen\n", "  screen                  = critic.screen\n  verify_routed           = true\n"},
			{"  real_runs = 20\n", "  real_runs = 120\n"}}},
		{name: "seed records near the baseline", base: qs, edits: [][2]string{{"  select    = \"random\"\n}", "  select    = \"baseline_neighbours\"\n}"}}},
		{name: "learning rate left out", base: qs, edits: [][2]string{{"  learning_rate       = 0.5\n", ""}}, reject: "E_MISSING"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ds := compile(t, writeVariant(t, tc.base, tc.edits...))
			if tc.reject != "" {
				for _, d := range ds.Errors() {
					if d.Code == tc.reject && d.Range.Valid() {
						return
					}
				}
				t.Fatalf("want %s at a position; got %v", tc.reject, ds)
			}
			if ds.HasErrors() {
				t.Fatalf("does not compile: %v", ds)
			}
			for i := range p.Variants {
				checkRun(t, p, i)
			}
		})
	}
}
