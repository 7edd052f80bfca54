package compiler

import (
	"fmt"
	"github.com/assay-lang/assay/compiler/estimate"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/cue"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/load"
)

func TestPassOrder(t *testing.T) {
	got := strings.Join(PassNames(), ",")
	if got != "set,presets,defaults,resolve,bind,purpose,sweep,check,pluginconfig,limits,domain,formulas,applies,ignored,canonical,lower,hash" {
		t.Fatalf("passes = %s", got)
	}
}

func TestDefaultsAreDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Defaults {
		if d.Path == "" || d.Value == "" || d.Why == "" {
			t.Errorf("default %+v lacks a path, value or reason", d)
		}
		if seen[d.Path] {
			t.Errorf("default %s listed twice", d.Path)
		}
		seen[d.Path] = true
	}
	for _, p := range []string{"loop.*.rollout_every", "loop.*.zero_variance", "critic.*.labels", "critic.*.aggregate", "reward.*.normalize", "evaluation.split", "executor", "role.*.kind", "calibration.loop"} {
		if !seen[p] {
			t.Errorf("default %s is not in the table", p)
		}
	}
}

func TestDefaultsApplied(t *testing.T) {
	p, ds := compileSource(t, "base.hcl", []byte(readBase(t)))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	v := p.Variants[0]
	kinds := map[string]string{}
	for _, r := range v.Roles {
		kinds[r.Name] = r.Kind
	}
	if kinds["rwm"] != "rwm" || kinds["judge"] != "critic" {
		t.Errorf("role kinds = %v", kinds)
	}
	l := v.Loops[0]
	if l.ZeroVariance != "drop" || l.Split != "train" {
		t.Errorf("loop defaults = %+v", l)
	}
	c := v.Critics[0]
	if c.Labels != "3way" || c.Aggregate != "majority" || c.Route == nil || c.Route.Source != "uncertainty >= threshold" {
		t.Errorf("critic defaults = %+v", c)
	}
	if c.Routed != (plan.Count{Low: 0.363, Expected: 0.363, High: 1}) {
		t.Errorf("routed = %+v, want [expected_routed, 1]", c.Routed)
	}
	if v.Executor.Kind != "local" || v.Executor.Concurrency != 1 {
		t.Errorf("executor = %+v", v.Executor)
	}
	ev, rl := v.PhaseOf(plan.PhaseEvaluation).Evaluation, v.PhaseOf(plan.PhaseRL).RL
	if ev.Split != "holdout" || rl.Loop != "policy" || rl.Calibration.Select != "top_rated" {
		t.Errorf("evaluation %+v, calibration %+v", ev, rl.Calibration)
	}
	if v.Rewards[0].Normalize != "scale" {
		t.Errorf("normalize = %q", v.Rewards[0].Normalize)
	}
}

// A field without a documented default is never filled silently.
func TestNoSilentDefaults(t *testing.T) {
	src, _ := mutate(t, readBase(t), "  kind                = \"rl\"\n", "")
	_, ds := compileSource(t, "case.hcl", []byte(src))
	if len(ds) == 0 || ds[0].Code != CodeMissing || !strings.Contains(ds[0].Summary, "kind") || !strings.Contains(ds[0].Detail, "write") {
		t.Fatalf("want E_MISSING for the loop kind with what to write, got:\n%s", ds.Format(0))
	}
}

// base.hcl: 24 steps / rollout_every 8 = 3 refreshes x 16 x 8 = 384
// candidates; seed 10 over olmo3 (5 train) and mdm (1 train); calibration
// 5 + 5; evaluation 3 holdout tasks x 4 = 12; olmo3 declares its baseline,
// so mdm's two tasks (train and holdout) get one baseline run each.
func TestLowerBase(t *testing.T) {
	p, _ := compileSource(t, "base.hcl", []byte(readBase(t)))
	v := p.Variants[0]
	byName := map[string]*plan.Phase{}
	var names []string
	for _, ph := range v.Phases {
		byName[ph.Name] = ph
		names = append(names, ph.Name)
	}
	if got := strings.Join(names, ","); got != "baselines,seed_records,rl.policy,rl.screened,evaluation" {
		t.Fatalf("phases = %s", got)
	}
	for _, ph := range v.Phases {
		if !ph.HasBody() {
			t.Errorf("phase %s (%s) has %d bodies, want one of its kind", ph.Name, ph.Kind, ph.Bodies())
		}
	}
	if b := byName["baselines"]; b.Kind != plan.PhaseBaselines || len(b.Calls.RealRuns) != 1 || b.Calls.RealRuns["mdm"] != plan.Exact(2) ||
		len(b.Calls.LLM) != 0 || fmt.Sprint(b.Baselines.Tasks) != "[{mdm t1} {mdm t2}]" {
		t.Errorf("baselines phase = %+v, tasks %v", b, b.Baselines.Tasks)
	}
	seed := byName["seed_records"].Calls.RealRuns
	if seed["olmo3"].Expected != 8 || seed["mdm"].Expected != 2 {
		t.Errorf("seed spread = %+v, want olmo3 8, mdm 2 (largest remainder of 10 over 5:1)", seed)
	}
	rl := byName["rl.policy"]
	if rl.RL.Refreshes != plan.Exact(3) || rl.Calls.LLM["rwm"] != plan.Exact(384) || rl.Calls.LLM["proposer"] != plan.Exact(384) || len(rl.Calls.RealRuns) != 0 {
		t.Errorf("rl phase = %+v", rl)
	}
	ev := byName["evaluation"].Calls
	if ev.RealRuns["olmo3"].Expected != 8 || ev.RealRuns["mdm"].Expected != 4 || ev.LLM["builder"].Expected != 12 {
		t.Errorf("evaluation = %+v", ev)
	}
	var rounds []string
	for _, r := range rl.RL.Calibration.Rounds {
		rounds = append(rounds, r.Name)
	}
	if got := strings.Join(rounds, ","); got != "calibration.policy.8,calibration.policy.16" {
		t.Fatalf("calibration rounds of rl.policy = %s", got)
	}
	if cal := rl.RL.Calibration.Rounds[1]; cal.AfterStep != 16 || cal.Runs != 5 || cal.Calls.LLM["builder"] != (plan.Count{}) || cal.Calls.LLM["rwm"] != (plan.Count{}) || cal.Calls.RealRuns["olmo3"].Expected+cal.Calls.RealRuns["mdm"].Expected != 5 {
		t.Errorf("calibration = %+v", cal)
	}
}

// until_budget with a screen, a calibration schedule and rollout_every 2:
// S is the largest step count whose runs fit what seed, calibration and
// evaluation leave of the budget, per routed-fraction scenario.
func TestUntilBudgetSolve(t *testing.T) {
	src := readBase(t)
	for _, r := range [][2]string{
		{screenedLoop, ""},
		{"steps               = 24", "until_budget        = true"},
		{"rollout_every       = 8", "rollout_every       = 2"},
		{"reward              = reward.rwm_gain", "reward              = reward.rwm_gain\n  screen              = critic.screen"},
		{"source     = \"predicted\"\n  predictor  = role.rwm", "source     = \"real\""},
		{"calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}\n", ""},
		{"expected_routed = 0.363", "expected_routed = { low = 0.25, expected = 0.363, high = 0.5 }"},
		{"real_runs = 40", "real_runs = 1000"},
	} {
		src, _ = mutate(t, src, r[0], r[1])
	}
	p, ds := compileSource(t, "case.hcl", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	// Room: 1000 - 2 baselines - 10 seed - 12 evaluation = 976. Per
	// refresh (2 steps): 128 candidates x fraction. Scenarios: 0.25 ->
	// 32/refresh -> 30 refreshes = 960 -> 60 steps, and step 61 would start
	// a 31st refresh (992 > 976); 0.363 -> 46.464/refresh -> 21 refreshes
	// (975.7) -> 42 steps; 0.5 -> 64/refresh -> 15 refreshes (960) -> 30
	// steps.
	steps := p.Variants[0].Loops[0].Steps
	if steps != (plan.Count{Low: 30, Expected: 42, High: 60}) {
		t.Fatalf("steps = %+v, want {30 42 60}", steps)
	}
	total := 0.0
	for _, ph := range p.Variants[0].Phases {
		for _, c := range ph.Calls.RealRuns {
			total += c.Expected
		}
	}
	if total > 1000 {
		t.Fatalf("plans %v real runs, over the budget of 1000", total)
	}
	if hi := estimate.Estimate(p).Totals.RealRuns.High; hi > 1000 {
		t.Fatalf("estimates up to %v real runs, over the budget of 1000", hi)
	}
}

func TestSweepExpansion(t *testing.T) {
	base := readBase(t)
	grid := base + `
sweep {
  axis "critic.screen.votes" {
    values = [3, 5, 7]
  }
  axis "loop.policy.states" {
    values = [8, 16]
  }
}
`
	p, ds := compileSource(t, "grid.hcl", []byte(grid))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	var names []string
	hashes := map[string]bool{}
	for _, v := range p.Variants {
		names = append(names, v.Name)
		if v.Overrides["critic.screen.votes"] == nil {
			t.Errorf("variant %s has no override of votes", v.Name)
		}
	}
	hashes[p.Hash] = true
	if got := strings.Join(names, " "); got != "votes=3,states=8 votes=3,states=16 votes=5,states=8 votes=5,states=16 votes=7,states=8 votes=7,states=16" {
		t.Errorf("grid variants = %s", got)
	}
	if p.Variants[0].Critics[0].Votes != 3 || p.Variants[5].Loops[0].StatesPerStep != 16 {
		t.Error("variant values not applied")
	}

	zip := strings.Replace(grid, "sweep {", "sweep {\n  mode = \"zip\"", 1)
	_, ds = compileSource(t, "zip.hcl", []byte(zip))
	if es := ds.Errors(); len(es) == 0 || es[0].Code != CodeSweepShape {
		t.Errorf("zip of 3 and 2 values: want E_SWEEP_SHAPE, got %v", ds)
	}
	zip = strings.Replace(zip, "values = [8, 16]", "values = [8, 16, 32]", 1)
	p, ds = compileSource(t, "zip.hcl", []byte(zip))
	if ds.HasErrors() || len(p.Variants) != 3 || p.Variants[2].Name != "votes=7,states=32" {
		t.Errorf("zip: %v %v", ds, p)
	}

	// A swept even k breaks the tie rule at the value, not the critic.
	even := strings.Replace(grid, "values = [3, 5, 7]", "values = [3, 4]", 1)
	_, ds = compileSource(t, "even.hcl", []byte(even))
	line := strings.Count(even[:strings.Index(even, "values = [3, 4]")], "\n") + 1
	if es := ds.Errors(); len(es) != 1 || es[0].Code != CodeTieRule || es[0].Range.Start.Line != line {
		t.Errorf("swept votes = 4: want one E_TIE_RULE on line %d, got:\n%s", line, ds.Format(0))
	}

	big := base + "sweep {\n" + strings.Repeat("  axis \"critic.screen.threshold\" {\n    values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]\n  }\n", 1) +
		"  axis \"loop.policy.states\" {\n    values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  }\n  axis \"seed\" {\n    values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n  }\n}\n"
	_, ds = compileSource(t, "big.hcl", []byte(big))
	if len(ds) == 0 || ds[0].Code != CodeTooLarge {
		t.Errorf("1,100 variants: want E_TOO_LARGE, got %v", ds)
	}
}

// An HCL spec and its CUE twin compile to plans with the same hash.
func TestCUETwinSameHash(t *testing.T) {
	for _, name := range []string{"lm2lm", "critic-grpo"} {
		// The HCL spec extends a base in specs/common; its twin is flat.
		hs, _, ds := load.Load("../specs/"+name+".hcl", load.Options{})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		cs, _, ds := load.Load("../specs/"+name+".cue", load.Options{})
		if ds.HasErrors() {
			t.Fatalf("%s.cue: %v", name, ds)
		}
		hp, ds := Compile(hs, Options{})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		cp, ds := Compile(cs, Options{})
		if ds.HasErrors() {
			t.Fatalf("%s.cue: %v", name, ds)
		}
		if hp.Hash != cp.Hash {
			t.Errorf("%s: HCL hash %s, CUE hash %s", name, hp.Hash, cp.Hash)
		}
	}
}

// Specs written as JSON and YAML load through the CUE front end and compile
// to the same plan hash as the HCL spec they were converted from.
func TestDataTwinsSameHash(t *testing.T) {
	t.Parallel()
	hs, ds := hcl.LoadFile("../specs/quickstart-critic.hcl", hcl.Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	hp, ds := Compile(hs, Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, ext := range []string{".json", ".yaml"} {
		name := "../specs/quickstart-critic" + ext
		cs, ds2 := cue.LoadFile(name, cue.Options{})
		if ds2.HasErrors() {
			t.Fatalf("%s: %v", name, ds2)
		}
		p, cds := Compile(cs, Options{})
		if cds.HasErrors() {
			t.Fatalf("%s: %v", name, cds)
		}
		if p.Hash != hp.Hash {
			t.Errorf("%s: hash %s, HCL hash %s", name, p.Hash, hp.Hash)
		}
	}
}

// Every code the compiler emits is documented in Codes.
func TestCodesDocumented(t *testing.T) {
	src, err := os.ReadFile("codes.go")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, c := range Codes {
		if c.Meaning == "" {
			t.Errorf("%s has no meaning", c.Code)
		}
		documented[c.Code] = true
	}
	for _, m := range regexp.MustCompile(`"([EW]_[A-Z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		if !documented[m[1]] {
			t.Errorf("code %s is not in Codes", m[1])
		}
	}
}

// Builds are priced as the runtime makes them: every candidate of a loop
// with a builder is built, and on predicted gain only those that build are
// predicted; repairs widen the builder's high by every repair of every
// build, and its low by the repairs of builds that fail for good.
func TestBuildsAndRepairsPriced(t *testing.T) {
	src := readBase(t)
	src, _ = mutate(t, src, "role \"builder\" {\n  llm = plugin.offline\n", "role \"builder\" {\n  llm = plugin.offline\n  build_failures = { low = 0.1, expected = 0.1, high = 0.5 }\n")
	src, _ = mutate(t, src, "  screen              = critic.screen\n}", "  screen              = critic.screen\n  repairs             = 3\n}")
	p, ds := compileSource(t, "base.hcl", []byte(src))
	if p == nil {
		t.Fatalf("does not compile: %v", ds)
	}
	byName := map[string]*plan.Phase{}
	for _, ph := range p.Variants[0].Phases {
		byName[ph.Name] = ph
	}
	// rl.policy: 384 candidates, all built, no repairs; the world model
	// predicts those that build: 90% expected, 50% at least, 90% at most.
	pol := byName["rl.policy"].Calls.LLM
	if got, want := pol["builder"], plan.Exact(384); got != want {
		t.Errorf("policy builder calls = %+v, want %+v", got, want)
	}
	if got, want := pol["rwm"], (plan.Count{Low: 192, Expected: 384 * 0.9, High: 384 * 0.9}); !nearCount(got, want) {
		t.Errorf("policy rwm calls = %+v, want %+v", got, want)
	}
	// rl.screened: 2 candidates with 3 repairs each at most.
	scr := byName["rl.screened"].Calls.LLM["builder"]
	if want := (plan.Count{Low: 2 * (1 + 3*0.1), Expected: 2 * (1 + 3*0.1), High: 2 * 4}); !nearCount(scr, want) {
		t.Errorf("screened builder calls = %+v, want %+v", scr, want)
	}
	for _, l := range p.Variants[0].Loops {
		if l.Name == "screened" && (l.Repairs != 3 || l.NewParent != "never") {
			t.Errorf("screened loop carries repairs %d, new_parent %q; want 3, never", l.Repairs, l.NewParent)
		}
		if l.Name == "policy" && (l.Repairs != 0 || l.NewParent != "") {
			t.Errorf("policy loop carries repairs %d, new_parent %q; want neither", l.Repairs, l.NewParent)
		}
	}
}

func nearCount(a, b plan.Count) bool {
	n := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return n(a.Low, b.Low) && n(a.Expected, b.Expected) && n(a.High, b.High)
}
