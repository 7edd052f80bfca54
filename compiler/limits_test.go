package compiler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/cue"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
)

// compileWithin compiles src and fails when that does not finish within a
// generous bound: sizes are counted, never listed one by one, before the
// limits pass.
func compileWithin(t *testing.T, name, src string) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	type res struct {
		p  *plan.Plan
		ds diag.Diagnostics
	}
	s, ds := hcl.Load(name, []byte(src), hcl.Options{})
	if ds.HasErrors() {
		t.Fatalf("%s does not load:\n%s", name, ds.Format(0))
	}
	done := make(chan res, 1)
	go func() {
		p, cds := Compile(s, Options{})
		done <- res{p, append(ds, cds...)}
	}()
	select {
	case r := <-done:
		return r.p, r.ds
	case <-time.After(60 * time.Second):
		t.Fatalf("compiling %s did not finish", name)
		return nil, nil
	}
}

func TestTooLarge(t *testing.T) {
	base := readBase(t)
	cases := []struct {
		name, old, new string
		summary        string
	}{
		{"train 1e12", "train   = 5", "train   = 1e12", "1000000000002 tasks"},
		{"holdout 1e12", "holdout = 2", "holdout = 1e12", "a plan holds at most 100000 tasks"},
		{"train just over", "train   = 5", "train   = 99999", "has 100001 tasks"},
		{"steps", "steps               = 24", "steps               = 1e12", "steps = 1000000000000"},
		{"states", "states              = 16", "states              = 1e12", "states = 1000000000000"},
		{"votes", "votes           = 15", "votes           = 1e11", "votes = 100000000000"},
		{"seed runs", "seed_runs = 10", "seed_runs = 2e12", "seed_runs = 2000000000000"},
		{"real runs", "real_runs = 40", "real_runs = 1e10", "real_runs = 10000000000"},
		{"after steps", "after_steps = [8, 16]", "after_steps = [8, 1e12]", "after_steps[1] = 1000000000000"},
		{"calibration rounds", "after_steps = [8, 16]", "after_steps = [" + strings.Repeat("1, ", 1000) + "2]", "1001 entries; the limit is 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, line := mutate(t, base, c.old, c.new)
			p, ds := compileWithin(t, "big.hcl", src)
			if p != nil {
				t.Fatal("compiled; want E_TOO_LARGE")
			}
			var found *diag.Diagnostic
			for _, d := range ds.Errors() {
				if d.Code == CodeTooLarge {
					found = d
				}
			}
			if found == nil || found.Range.Start.Line != line || !strings.Contains(found.Summary, c.summary) {
				t.Fatalf("want %s at line %d containing %q, got:\n%s", CodeTooLarge, line, c.summary, ds.Format(0))
			}
			if found.Detail == "" {
				t.Error("no detail saying what to do")
			}
		})
	}
}

// The largest allowed task count compiles; the plan lists every task.
func TestLargestAllowedTasks(t *testing.T) {
	// The first environment holds train + 2 holdout tasks, the second lists 2.
	src, _ := mutate(t, readBase(t), "train   = 5", "train   = 99996")
	p, ds := compileWithin(t, "big.hcl", src)
	if ds.HasErrors() || p == nil {
		t.Fatal(ds.Format(0))
	}
	n := 0
	for _, e := range p.Variants[0].Envs {
		n += len(e.Tasks)
	}
	if n != MaxTasks {
		t.Fatalf("plan lists %d tasks, want %d", n, MaxTasks)
	}
}

// Environments together, and the variants of a sweep together, are bounded.
func TestTooLargeTogether(t *testing.T) {
	base := readBase(t)
	src, line := mutate(t, base, "train   = 5", "train   = 99990")
	// The second environment lists 2 tasks; a third with counted tasks
	// takes the variant over.
	src += "\nenvironment \"more\" {\n  family = \"autoregressive\"\n  trainer = plugin.tinylm\n  baseline = 1\n  scale = 1\n  metric {\n    name = \"val_bpb\"\n    direction = \"minimize\"\n  }\n  run_cost {\n    gpu = \"H100\"\n    gpus = 1\n    hours = 1\n  }\n  tasks {\n    train = 10\n    holdout = 0\n  }\n}\n"
	_, ds := compileWithin(t, "big.hcl", src)
	errs := ds.Errors()
	if len(errs) != 1 || errs[0].Code != CodeTooLarge || errs[0].Range.Start.Line <= line || !strings.Contains(errs[0].Summary, "with the environments before it") {
		t.Fatalf("want one %s at the third environment, got:\n%s", CodeTooLarge, ds.Format(0))
	}

	sweep, _ := mutate(t, base, "train   = 5", "train   = 50000")
	sweep += "\nsweep {\n  mode = \"grid\"\n  axis \"critic.screen.votes\" {\n    values = [3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43]\n  }\n}\n"
	_, ds = compileWithin(t, "sweep.hcl", sweep)
	errs = ds.Errors()
	if len(errs) != 1 || errs[0].Code != CodeTooLarge || !strings.Contains(errs[0].Summary, "variants hold") {
		t.Fatalf("want one %s at the sweep, got:\n%s", CodeTooLarge, ds.Format(0))
	}
}

// The CUE front end reaches the same limit.
func TestTooLargeCUE(t *testing.T) {
	src := `
plugin: tinylm: {kind: "trainer", source: "builtin:tinylm"}
environment: e: {
	family: "autoregressive"
	trainer: "plugin.tinylm"
	metric: {name: "val_bpb", direction: "minimize"}
	run_cost: {gpu_hours: 1}
	tasks: {train: 1000000000000, holdout: 0}
}
`
	s, ds := cue.Load([]cue.Source{{Name: "big.cue", Src: []byte(src)}}, cue.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	done := make(chan diag.Diagnostics, 1)
	go func() { _, cds := Compile(s, Options{}); done <- cds }()
	select {
	case cds := <-done:
		for _, d := range cds {
			if d.Code == CodeTooLarge && d.Range.Filename == "big.cue" && d.Range.Start.Line == 8 {
				return
			}
		}
		t.Fatalf("want %s at big.cue:8, got:\n%s", CodeTooLarge, cds.Format(0))
	case <-time.After(60 * time.Second):
		t.Fatal("compiling did not finish")
	}
}

func BenchmarkCompileLargestTasks(b *testing.B) {
	src := strings.Replace(readBase(b), "train   = 5", "train   = 99996", 1)
	for b.Loop() {
		if p, ds := compileSource(b, "big.hcl", []byte(src)); p == nil {
			b.Fatal(ds.Format(0))
		}
	}
}

// Zip and grid sweeps share one variant limit, refused before any variant
// is copied, with a hint that names only settings that exist.
func TestSweepVariantLimit(t *testing.T) {
	base := readBase(t)
	values := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", 3+2*(i%10))
		}
		return b.String()
	}
	cases := []struct {
		name, sweep, summary string
		line                 int // of the sweep, counted from the sweep block
	}{
		{"zip", "sweep {\n  mode = \"zip\"\n  axis \"critic.screen.votes\" {\n    values = [" + values(DefaultMaxVariants+1) + "]\n  }\n}\n",
			"has 1001 values; a sweep expands to at most 1000 variants", 2},
		{"grid", "sweep {\n  mode = \"grid\"\n  axis \"critic.screen.votes\" {\n    values = [" + values(40) + "]\n  }\n  axis \"seed\" {\n    values = [" + values(40) + "]\n  }\n}\n",
			"cross to 1600 variants; a sweep expands to at most 1000", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := base + "\n"
			sweepLine := strings.Count(src, "\n") + 1
			p, ds := compileWithin(t, "sweep.hcl", src+c.sweep)
			if p != nil {
				t.Fatal("compiled; want E_TOO_LARGE")
			}
			errs := ds.Errors()
			if len(errs) != 1 || errs[0].Code != CodeTooLarge || errs[0].Range.Start.Line != sweepLine+c.line || !strings.Contains(errs[0].Summary, c.summary) {
				t.Fatalf("want one %s at line %d containing %q, got:\n%s", CodeTooLarge, sweepLine+c.line, c.summary, ds.Format(0))
			}
			if d := errs[0].Detail; strings.Contains(d, "raise") || !strings.Contains(d, "split the values over several specs") {
				t.Errorf("detail %q names no setting that exists", d)
			}
		})
	}
	// The limit itself compiles.
	src := base + "\nsweep {\n  mode = \"zip\"\n  axis \"critic.screen.votes\" {\n    values = [" + values(5) + "]\n  }\n}\n"
	if p, ds := compileWithin(t, "sweep.hcl", src); p == nil || ds.HasErrors() {
		t.Fatalf("a small zip sweep does not compile:\n%s", ds.Format(0))
	}
}

// Products of counts the runtime holds at once are refused at validate,
// at the largest factor, though each factor alone is within MaxCount.
func TestBatchLimits(t *testing.T) {
	base := readBase(t)
	cases := []struct {
		name, old, new, summary string
	}{
		{"proposals per state", "proposals_per_state = 8", "proposals_per_state = 1e9", "loop \"policy\" makes 16000000000 candidates per rollout (states 16 x proposals_per_state 1000000000)"},
		{"states", "states              = 16", "states              = 1e9", "8000000000 candidates per rollout"},
		{"screened votes", "votes           = 15", "votes           = 50001", "loop \"screened\" makes 100002 candidates per rollout (states 1 x proposals_per_state 2 x critic \"screen\" votes 50001)"},
		{"evaluation k", "best_at = 4", "best_at = 1e6", "evaluation makes 3000000 real runs (arms 1 x holdout tasks 3 x states 1 x best_at 1000000)"},
		{"seed runs", "seed_runs = 10", "seed_runs = 1e9", "records makes 1000000000 seed runs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, line := mutate(t, base, c.old, c.new)
			p, ds := compileWithin(t, "big.hcl", src)
			if p != nil {
				t.Fatal("compiled; want E_TOO_LARGE")
			}
			errs := ds.Errors()
			if len(errs) != 1 || errs[0].Code != CodeTooLarge || errs[0].Range.Start.Line != line || !strings.Contains(errs[0].Summary, c.summary) {
				t.Fatalf("want one %s at line %d containing %q, got:\n%s", CodeTooLarge, line, c.summary, ds.Format(0))
			}
			if !strings.Contains(errs[0].Detail, "Lower ") {
				t.Errorf("detail %q says nothing to do", errs[0].Detail)
			}
		})
	}
	// Evolution: islands x ideas_per_round.
	evo := base + "\nloop \"evo\" {\n  kind            = \"evolution\"\n  proposer        = role.proposer\n  builder         = role.builder\n  islands         = 1000\n  rounds          = 2\n  ideas_per_round = 1000\n  verifications_per_round = 1\n}\n"
	_, ds := compileWithin(t, "evo.hcl", evo)
	found := false
	for _, d := range ds.Errors() {
		found = found || d.Code == CodeTooLarge && strings.Contains(d.Summary, "1000000 ideas per round over all islands (islands 1000 x ideas_per_round 1000)")
	}
	if !found {
		t.Fatalf("islands x ideas_per_round: want %s, got:\n%s", CodeTooLarge, ds.Format(0))
	}
}

// What a loop or a critic training does over its whole run is bounded
// (MaxWork), though each count alone is within MaxCount and each batch
// within MaxBatch: steps = 1e9 would make billions of calls and never
// end. Refused at the largest factor the spec writes.
func TestWorkLimits(t *testing.T) {
	base := readBase(t)
	evo := "\nloop \"evo\" {\n  kind            = \"evolution\"\n  proposer        = role.proposer\n  builder         = role.builder\n  islands         = 2\n  rounds          = 2\n  ideas_per_round = 3\n  verifications_per_round = 1\n}\n"
	cases := []struct {
		name, src, old, new, summary string
	}{
		{"rl steps", base, "steps               = 24", "steps               = 1e9",
			"loop \"policy\" makes 128000000000 proposals over its steps (steps 1000000000 x states 16 x proposals_per_state 8); the limit is 10000000"},
		{"rl at the limit", base, "steps               = 24", "steps               = 78125", ""},
		{"rl past the limit", base, "steps               = 24", "steps               = 78126", "makes 10000128 proposals over its steps"},
		{"until_budget max_steps", base, "steps               = 24", "until_budget        = true\n  max_steps           = 1e9",
			"loop \"policy\" makes 128000000000 proposals over its steps (max_steps 1000000000 x states 16 x proposals_per_state 8)"},
		{"evolution rounds", base + evo, "rounds          = 2", "rounds          = 1e9",
			"loop \"evo\" makes 6000000000 ideas over its rounds (rounds 1000000000 x islands 2 x ideas_per_round 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, line := mutate(t, c.src, c.old, c.new)
			if strings.Contains(c.new, "max_steps") {
				line++ // at max_steps, the line after until_budget
			}
			_, ds := compileWithin(t, "long.hcl", src)
			var errs []*diag.Diagnostic
			for _, d := range ds.Errors() {
				if d.Code == CodeTooLarge {
					errs = append(errs, d)
				}
			}
			if c.summary == "" {
				if len(errs) != 0 {
					t.Fatalf("refused at the limit:\n%s", ds.Format(0))
				}
				return
			}
			if len(errs) != 1 || errs[0].Range.Start.Line != line || !strings.Contains(errs[0].Summary, c.summary) || !strings.Contains(errs[0].Detail, "would not end") {
				t.Fatalf("want one %s at line %d containing %q, got:\n%s", CodeTooLarge, line, c.summary, ds.Format(0))
			}
		})
	}
	s := loadSpec(t, "../specs/critic-train.hcl")
	g := s.CriticTrainings[0].GRPO
	g.Steps.V = 1e9
	_, ds := Compile(s, Options{})
	errs := ds.Errors()
	if len(errs) != 1 || errs[0].Code != CodeTooLarge || errs[0].Range != g.Steps.Range || !strings.Contains(errs[0].Summary, "verdicts over its GRPO steps (steps 1000000000 x pairs_per_step ") {
		t.Fatalf("critic GRPO steps: want one %s at steps, got:\n%s", CodeTooLarge, ds.Format(0))
	}
}
