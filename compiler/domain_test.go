package compiler

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/spec"
)

func TestBaseSpecIsValid(t *testing.T) {
	p, ds := compileSource(t, "base.hcl", []byte(readBase(t)))
	if ds.HasErrors() || p == nil {
		t.Fatalf("base spec has errors:\n%s", ds.Format(0))
	}
	for _, d := range ds {
		t.Errorf("unexpected diagnostic: %v", d)
	}
}

// Each case replaces one snippet of the base spec and expects a diagnostic
// of code on the line of the replacement, plus an offset in lines (for a
// diagnostic that points at a later line than the replaced text starts),
// and optionally an exact column.
func TestDomainChecks(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		code     string
		dline    int
		col      int
		// anchor, when set, is text of the mutated spec whose line the
		// diagnostic must be on instead.
		anchor string
	}{
		{"clip zero", "clip       = 6", "clip       = 0", "E_CLIP", 0, 16, ""},
		{"clip negative", "clip       = 6", "clip       = -2", "E_CLIP", 0, 0, ""},
		{"threshold one", "threshold       = 0.25", "threshold       = 1", "E_THRESHOLD", 0, 21, ""},
		{"threshold negative", "threshold       = 0.25", "threshold       = -0.1", "E_THRESHOLD", 0, 0, ""},
		{"votes zero", "votes           = 15", "votes           = 0", "E_VOTES", 0, 21, ""},
		{"even votes without tie", "votes           = 15", "votes           = 16", "E_TIE_RULE", 0, 21, ""},
		{"after_steps not increasing", "after_steps = [8, 16]", "after_steps = [16, 8]", "E_CALIBRATION_STEPS", 0, 17, ""},
		{"after_steps zero", "after_steps = [8, 16]", "after_steps = [0, 16]", "E_CALIBRATION_STEPS", 0, 0, ""},
		{"after_steps past the loop", "after_steps = [8, 16]", "after_steps = [8, 24]", "E_CALIBRATION_STEPS", 0, 0, ""},
		{"budget length", "budget      = [5, 5]", "budget      = [5, 5, 5]", "E_CALIBRATION_BUDGET", 0, 17, ""},
		{"budget fit", "real_runs = 40", "real_runs = 31", "E_BUDGET_FIT", 0, 15, ""},
		{"scale missing", "  task \"t1\" {\n    split = \"train\"\n    scale = 0.02\n", "  task \"t1\" {\n    split = \"train\"\n", "E_SCALE_MISSING", 0, 8, ""},
		{"price missing", "gpu   = \"B200\"\n    gpus  = 8\n    hours = 1.5\n  }\n  tasks", "gpu   = \"H100\"\n    gpus  = 8\n    hours = 1.5\n  }\n  tasks", "E_PRICE_MISSING", 0, 13, ""},
		{"unknown role", "predictor  = role.rwm", "predictor  = role.rmw", "E_UNKNOWN_REF", 0, 16, ""},
		{"unknown plugin", "trainer  = plugin.tinylm\n  baseline", "trainer  = plugin.tinyln\n  baseline", "E_UNKNOWN_REF", 0, 14, ""},
		{"wrong ref kind", "reward              = reward.rwm_gain", "reward              = critic.screen", "E_REF_KIND", 0, 0, ""},
		{"rl needs states", "  states              = 16\n", "", "E_MISSING", 0, 6, "loop \"policy\""},
		{"rl needs steps", "  steps               = 24\n", "", "E_LOOP_FIELD", 0, 6, "loop \"policy\""},
		{"evolution field on rl", "  states              = 16\n", "  states              = 16\n  islands = 3\n", "E_LOOP_FIELD", 1, 0, ""},
		{"until_budget without cap", "budget {\n  real_runs = 40\n}", "", "E_BUDGET_FIT_NONE", 0, 0, ""},
		{"expected_routed negative", "expected_routed = 0.363", "expected_routed = -0.1", "E_EXPECTED_ROUTED", 0, 21, ""},
		{"expected_routed above one", "expected_routed = 0.363", "expected_routed = 1.5", "E_EXPECTED_ROUTED", 0, 0, ""},
		{"critic role not a critic", "role            = role.judge", "role            = role.builder", "E_SCREEN_ROLE", 0, 21, ""},
		{"predictor not an rwm", "predictor  = role.rwm", "predictor  = role.builder", "E_PREDICTOR_ROLE", 0, 16, ""},
		{"reward formula unknown name", "value      = \"clip(predicted_gain / scale, -c, c)\"", "value      = \"clip(predicted_gian / scale, -c, c)\"", "E_FORMULA_NAME", 0, 22, ""},
		{"route formula not bool", "expected_routed = 0.363", "expected_routed = 0.363\n  route = \"uncertainty + 1\"", "E_FORMULA_TYPE", 1, 0, ""},
		{"missing tasks", "  tasks {\n    train   = 5\n    holdout = 2\n  }\n", "", "E_MISSING", 0, 13, "environment \"olmo3\""},
		{"run_cost both", "hours = 1.5\n  }\n  tasks", "hours = 1.5\n    gpu_hours = 12\n  }\n  tasks", "E_CONFLICT", 1, 0, ""},
	}
	base := readBase(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, line := mutate(t, base, c.old, c.new)
			if c.code == "E_BUDGET_FIT_NONE" {
				// until_budget needs budget.real_runs: replace steps too.
				src, _ = mutate(t, src, "steps               = 24", "until_budget        = true\n  rollout_every_     = 1")
				src = strings.Replace(src, "  rollout_every_     = 1\n", "", 1)
				src = strings.Replace(src, "reward              = reward.rwm_gain", "reward              = reward.rwm_gain\n  screen = critic.screen", 1)
				src = strings.Replace(src, "source     = \"predicted\"\n  predictor  = role.rwm", "source     = \"real\"", 1)
				src = strings.Replace(src, "calibration {\n  loop        = loop.policy\n  after_steps = [8, 16]\n  budget      = [5, 5]\n}", "", 1)
				line = strings.Count(src[:strings.Index(src, "until_budget")], "\n") + 1
				c.code = "E_UNTIL_BUDGET"
			}
			_, ds := compileSource(t, "case.hcl", []byte(src))
			want := line + c.dline
			if c.anchor != "" {
				want = strings.Count(src[:strings.Index(src, c.anchor)], "\n") + 1
			}
			for _, d := range ds {
				if d.Code == c.code && d.Range.Start.Line == want && (c.col == 0 || d.Range.Start.Column == c.col) {
					if d.Range.Filename != "case.hcl" {
						t.Errorf("diagnostic has file %q", d.Range.Filename)
					}
					return
				}
			}
			t.Fatalf("want %s at line %d col %d; got:\n%s", c.code, want, c.col, ds.Format(50))
		})
	}
}

// Every domain check reports all problems at once, sorted.
func TestAllDiagnosticsAtOnceSorted(t *testing.T) {
	src := readBase(t)
	src, _ = mutate(t, src, "clip       = 6", "clip       = 0")
	src, _ = mutate(t, src, "votes           = 15", "votes           = 0")
	src, _ = mutate(t, src, "real_runs = 40", "real_runs = 1")
	_, ds := compileSource(t, "case.hcl", []byte(src))
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	got := strings.Join(codes, ",")
	if got != "E_CLIP,E_VOTES,E_BUDGET_FIT" {
		t.Fatalf("codes = %s, want E_CLIP,E_VOTES,E_BUDGET_FIT in source order", got)
	}
}

// A front end may not catch a task listed twice (the CUE front end merges
// structs), so the compiler checks split overlap itself.
func TestSplitOverlap(t *testing.T) {
	s, ds := hcl.Load("base.hcl", []byte(readBase(t)), hcl.Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	env := s.Environments[1]
	at := diag.Range{Filename: "base.hcl", Start: diag.Pos{Line: 99, Column: 3}}
	env.TaskList = append(env.TaskList, &spec.Task{Name: "t1", NameRange: at, Split: spec.Of("holdout", at), Scale: spec.Of(0.02, at)})
	_, cds := Compile(s, Options{})
	for _, d := range cds {
		if d.Code == CodeSplitOverlap && d.Range == at {
			return
		}
	}
	t.Fatalf("no E_SPLIT_OVERLAP at %v:\n%s", at, cds.Format(0))
}

// Compile never modifies its input.
func TestCompileLeavesInputAlone(t *testing.T) {
	s, _ := hcl.Load("base.hcl", []byte(readBase(t)), hcl.Options{})
	before := spec.Tree(s)
	if _, ds := Compile(s, Options{}); ds.HasErrors() {
		t.Fatal(ds)
	}
	if diff := cmp.Diff(before, spec.Tree(s)); diff != "" {
		t.Fatalf("Compile changed its input:\n%s", diff)
	}
}
