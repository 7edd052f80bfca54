package diff

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/load/loadtest"
	"github.com/assay-lang/assay/lang/spec"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func loadSpec(t *testing.T, path string, vars ...string) *spec.Spec {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{Vars: vars})
	if ds.HasErrors() {
		t.Fatalf("%s: %s", path, ds.Format(0))
	}
	return s
}

func mustDiff(t *testing.T, old, new string, opts Options) *Result {
	t.Helper()
	opts.OldName, opts.NewName = filepath.Base(old), filepath.Base(new)
	r, ds := Diff(loadSpec(t, old), loadSpec(t, new), opts)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compiler/diff -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (go test ./compiler/diff -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func renderAll(t *testing.T, name string, r *Result) {
	t.Helper()
	var h, v, j, m bytes.Buffer
	if err := WriteHuman(&h, r, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteHuman(&v, r, true); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&j, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&m, r); err != nil {
		t.Fatal(err)
	}
	golden(t, name+".txt", h.Bytes())
	golden(t, name+".verbose.txt", v.Bytes())
	golden(t, name+".json", j.Bytes())
	golden(t, name+".md", m.Bytes())
}

// The critic screen buys 107 expected steps where verify-all buys 39.
func TestDiffVerifyAllToCritic(t *testing.T) {
	r := mustDiff(t, "../../specs/critic-grpo-verify-all.hcl", "../../specs/critic-grpo.hcl", Options{})
	if !r.Changed {
		t.Fatal("want a change")
	}
	steps, ok := r.Total("loops.policy.steps")
	if !ok {
		t.Fatal("no loops.policy.steps delta")
	}
	if steps.Old.Expected != 39 || steps.New.Expected != 107 || steps.New.Low != 39 || steps.Delta != 68 {
		t.Errorf("steps = %+v", steps)
	}
	var lines []string
	for _, c := range r.Fields {
		lines = append(lines, c.line(false))
	}
	joined := strings.Join(lines, "\n")
	for _, want := range []string{
		"+ critic.screen",
		"+ role.critic",
		"+ role.summarizer",
		"+ loop.policy.screen = \"critic.screen\"",
		"~ loop.policy.preset: \"grpo\" -> \"critic-grpo\"",
		"~ reward.improve.source: \"real\" -> \"critic\"",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("field changes lack %q:\n%s", want, joined)
		}
	}
	renderAll(t, "verify-all-to-critic", r)
}

// Formatting and comments are not changes; neither is the front end.
func TestDiffNoChange(t *testing.T) {
	// The reformatted spec names its suite beside it, as critic-grpo.hcl
	// does: it is read from a folder that holds both.
	dir := t.TempDir()
	for src, dst := range map[string]string{
		"testdata/critic-grpo-reformatted.hcl":   "critic-grpo-reformatted.hcl",
		"../../specs/suites/mls-bench-lite.json": filepath.Join("suites", "mls-bench-lite.json"),
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := [][2]string{
		{"../../specs/critic-grpo.hcl", filepath.Join(dir, "critic-grpo-reformatted.hcl")},
		{"../../specs/critic-grpo.hcl", "../../specs/critic-grpo.cue"},
		{"../../specs/lm2lm.hcl", "../../specs/lm2lm.cue"},
	}
	for _, c := range cases {
		r := mustDiff(t, c[0], c[1], Options{})
		if r.Changed || len(r.Fields) != 0 || r.OldHash != r.NewHash {
			t.Errorf("%s vs %s: want no change, got %+v", c[0], c[1], r.Fields)
		}
		var b bytes.Buffer
		WriteHuman(&b, r, false)
		if !strings.Contains(b.String(), "no change") {
			t.Errorf("human output %q lacks \"no change\"", b.String())
		}
		for _, d := range r.Deltas() {
			if d.Changed() {
				t.Errorf("%s moved: %+v", d.Metric, d)
			}
		}
	}
}

// Dropping a calibration round changes one field path and saves 34 runs.
func TestDiffCalibration(t *testing.T) {
	fail, err := ParseThreshold("real_runs=-10")
	if err != nil {
		t.Fatal(err)
	}
	warn, _ := ParseThreshold("usd=+1%")
	r := mustDiff(t, "../../specs/lm2lm.hcl", "testdata/lm2lm-two-rounds.hcl", Options{FailAbove: []Threshold{fail}, WarnAbove: []Threshold{warn}})
	var paths []string
	for _, c := range r.Fields {
		paths = append(paths, c.line(false))
	}
	joined := strings.Join(paths, "\n")
	if !strings.Contains(joined, "~ calibration.after_steps: [16, 40, 64] -> [16, 40]") {
		t.Errorf("fields:\n%s", joined)
	}
	runs, _ := r.Total("real_runs")
	if runs.Old.Expected != 200 || runs.New.Expected != 166 {
		t.Errorf("real runs %+v", runs)
	}
	if len(r.Failed) != 1 || r.Failed[0].Metric != "real_runs" {
		t.Errorf("failed = %+v, want real_runs crossing -10", r.Failed)
	}
	if len(r.Warned) != 0 {
		t.Errorf("warned = %+v; the cost falls, so usd=+1%% must not warn", r.Warned)
	}
	renderAll(t, "lm2lm-two-rounds", r)
}

// A -var override shows as the field it flows into.
func TestDiffVariable(t *testing.T) {
	old := loadSpec(t, "../../specs/lm2lm.hcl")
	new := loadSpec(t, "../../specs/lm2lm.hcl", "steps=80")
	r, ds := Diff(old, new, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	if !r.Changed || len(r.Fields) != 1 || r.Fields[0].line(false) != "~ loop.policy.steps: 96 -> 80" {
		t.Fatalf("changed=%v fields=%v", r.Changed, r.Fields)
	}
	calls, _ := r.Total("roles.rwm.calls")
	if calls.Old.Expected != 24576 || calls.New.Expected != 10*2048 {
		t.Errorf("rwm calls %+v, want 24,576 -> 20,480", calls)
	}
}

func TestParseThreshold(t *testing.T) {
	ok := map[string]Threshold{
		"usd=+10%":                {Metric: "usd", Limit: 0.1, Relative: true, Sign: 1},
		"real_runs=+50":           {Metric: "real_runs", Limit: 50, Sign: 1},
		"loops.policy.steps=-20%": {Metric: "loops.policy.steps", Limit: 0.2, Relative: true, Sign: -1},
		"usd=$1,000":              {Metric: "usd", Limit: 1000},
		"roles.rwm.calls=5%":      {Metric: "roles.rwm.calls", Limit: 0.05, Relative: true},
	}
	for in, want := range ok {
		got, err := ParseThreshold(in)
		want.Raw = in
		if err != nil || got != want {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"usd", "dollars=+5%", "usd=+x", "usd=", "roles.rwm.steps=1", "usd=-"} {
		if _, err := ParseThreshold(in); err == nil {
			t.Errorf("ParseThreshold(%q) succeeded", in)
		}
	}
}

func TestThresholdCrosses(t *testing.T) {
	rel := func(f float64) *float64 { return &f }
	up := Delta{Metric: "usd", Delta: 11800, Relative: rel(0.29)}
	down := Delta{Metric: "usd", Delta: -11800, Relative: rel(-0.29)}
	fromZero := Delta{Metric: "usd", Delta: 5}
	cases := []struct {
		th   string
		d    Delta
		want bool
	}{
		{"usd=+10%", up, true},
		{"usd=+30%", up, false},
		{"usd=+10%", down, false},
		{"usd=-10%", down, true},
		{"usd=10%", down, true},
		{"usd=+11800", up, false}, // strictly above
		{"usd=+11799", up, true},
		{"usd=+10%", fromZero, true},
		{"usd=-10%", fromZero, false},
	}
	for _, c := range cases {
		th, err := ParseThreshold(c.th)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.crosses(c.d); got != c.want {
			t.Errorf("%s on %+v = %v, want %v", c.th, c.d, got, c.want)
		}
	}
}

// A changed assumption shows as its own delta, beside the figures it moves.
func TestDiffReportsAChangedAssumption(t *testing.T) {
	path := loadtest.CopyEdited(t, "../../specs/critic-grpo.hcl", t.TempDir(), "expected_routed = percent(36.3)", "expected_routed = percent(30)")
	r, ds := Diff(loadSpec(t, "../../specs/critic-grpo.hcl"), loadSpec(t, path), Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var got *Delta
	for i, d := range r.Assumptions {
		if d.Metric == "assumptions.critic.screen.routed_share" {
			got = &r.Assumptions[i]
		} else if d.Changed() {
			t.Errorf("%s changed too: %+v", d.Metric, d)
		}
	}
	if got == nil || got.Old.Expected != 0.363 || got.New.Expected != 0.3 || !got.Changed() {
		t.Fatalf("routed share delta = %+v", got)
	}
	if _, ok := r.Total("assumptions.critic.screen.routed_share"); !ok {
		t.Error("the assumption is not among the deltas thresholds see")
	}
}

// An assumption given as a range instead of one number changes only its
// low and high figures: the diff shows it, and the estimate's high
// figures move with it while the expected ones stay.
func TestDiffReportsAWidenedAssumption(t *testing.T) {
	// The run cost is written in the base critic-grpo.hcl extends.
	path := loadtest.CopyEdited(t, "../../specs/critic-grpo.hcl", t.TempDir(), "hours = minutes(45)", "hours = { low = 0.5, expected = 0.75, high = 1.5 }")
	r, ds := Diff(loadSpec(t, "../../specs/critic-grpo.hcl"), loadSpec(t, path), Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var got *Delta
	for i, d := range r.Assumptions {
		if d.Metric == "assumptions.environment.mls_lite.hours_per_run" {
			got = &r.Assumptions[i]
		}
	}
	if got == nil || got.New != (plan.Count{Low: 0.5, Expected: 0.75, High: 1.5}) || !got.Changed() {
		t.Fatalf("hours per run delta = %+v", got)
	}
	gh, ok := r.Total("gpu_hours")
	if !ok || gh.New.Expected != gh.Old.Expected || gh.New.High <= gh.Old.High || gh.New.Low >= gh.Old.Low {
		t.Errorf("GPU-hours delta = %+v, want the same expected figure within a wider range", gh)
	}
}
