package compiler

import (
	"reflect"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/spec"
)

// TestSet checks --set: a setting acts as if the spec said it (the plan
// carries the value), is recorded in the plan and changes its hash, and
// every bad setting is refused with a code at its own position.
func TestSet(t *testing.T) {
	t.Parallel()
	src := []byte(readBase(t))
	s, ds := hcl.Load("base.hcl", src, hcl.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	base, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	sets, ds := ParseSettings([]string{"critic.screen.votes=9", "loop.policy.steps=40", "budget.usd=12345.5"})
	if len(ds) != 0 {
		t.Fatal(ds.Format(0))
	}
	p, ds := Compile(s, Options{Set: sets})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	if p.Hash == base.Hash {
		t.Error("--set did not change the plan hash")
	}
	v := p.Variants[0]
	if got := v.Critics[0].Votes; got != 9 {
		t.Errorf("critic votes = %d, want 9", got)
	}
	if got := v.Budget.USD; got != 12345.5 {
		t.Errorf("budget.usd = %v, want 12345.5", got)
	}
	want := map[string]any{"critic.screen.votes": 9.0, "loop.policy.steps": 40.0, "budget.usd": 12345.5}
	if len(p.Overrides) != len(want) {
		t.Errorf("overrides = %v, want %v", p.Overrides, want)
	}
	for k, w := range want {
		if p.Overrides[k] != w {
			t.Errorf("overrides[%s] = %v, want %v", k, p.Overrides[k], w)
		}
	}
	// The same settings compile to the same hash; the spec is untouched.
	if again, _ := Compile(s, Options{Set: sets}); again.Hash != p.Hash {
		t.Error("the same settings gave another hash")
	}
	if again, _ := Compile(s, Options{}); again.Hash != base.Hash {
		t.Error("Compile with --set modified the caller's spec")
	}

	for _, tc := range []struct{ arg, code, col, summary string }{
		{"critic.screen.votes=nine", CodeSetValue, "--set:1:21", `takes a whole number, got "nine"`},
		{"critic.screen.votes=2.5", CodeSetValue, "--set:1:21", "takes a whole number"},
		{"critic.screen.aggregate=mean", CodeSetValue, "--set:1:25", "must be one of"},
		{"loop.policy.stepz=4", CodeSetPath, "--set:1:1", `did you mean "steps"`},
		{"critic.scren.votes=3", CodeSetPath, "--set:1:1", `the spec has no critic "scren"`},
		{"sweep.mode=zip", CodeSetPath, "--set:1:1", "cannot be set"},
		{"variable.steps.default=3", CodeSetPath, "--set:1:1", "while the spec loads"},
		{"loop.policy.reward=x", CodeSetValue, "--set:1:20", "takes a reference"},
		{"critic.screen.votes=0", CodeVotes, "--set:1:21", ""},
		{"no-equals", CodeSetSyntax, "--set:1:1", "not an assignment"},
	} {
		sets, ds := ParseSettings([]string{tc.arg})
		if !ds.HasErrors() {
			_, ds = Compile(s, Options{Set: sets})
		}
		found := false
		for _, d := range ds {
			if d.Code == tc.code && d.Range.String() == tc.col && strings.Contains(d.Summary, tc.summary) {
				found = true
			}
		}
		if !found {
			t.Errorf("--set %s: want %s at %s containing %q, got:\n%s", tc.arg, tc.code, tc.col, tc.summary, ds.Format(0))
		}
	}

	// Votes changed, routed share not: a warning at the path; both: none.
	sets, _ = ParseSettings([]string{"critic.screen.votes=9"})
	if _, ds = Compile(s, Options{Set: sets}); len(ds) == 0 || ds[len(ds)-1].Code != CodeSetRouted || ds[len(ds)-1].Range.String() != "--set:1:1" {
		t.Errorf("votes without expected_routed: got\n%s", ds.Format(0))
	}
	sets, _ = ParseSettings([]string{"critic.screen.votes=9", "critic.screen.expected_routed=0.2"})
	if _, ds = Compile(s, Options{Set: sets}); hasCode(ds, CodeSetRouted) {
		t.Errorf("votes with expected_routed: got\n%s", ds.Format(0))
	}

	// A field a sweep axis sets cannot also be set.
	swept := strings.Replace(string(src), "loop \"policy\" {", "sweep {\n  axis \"critic.screen.votes\" {\n    values = [3, 5]\n  }\n}\n\nloop \"policy\" {", 1)
	ss, ds := hcl.Load("swept.hcl", []byte(swept), hcl.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	sets, _ = ParseSettings([]string{"critic.screen.votes=9"})
	if _, ds = Compile(ss, Options{Set: sets}); !ds.HasErrors() || ds[0].Code != CodeSetPath {
		t.Errorf("--set of a swept field: got\n%s", ds.Format(0))
	}
}

func FuzzParseSettings(f *testing.F) {
	f.Add("critic.screen.votes=9")
	f.Add("=")
	f.Add(" a.b = \"x\"")
	f.Add("calibration.after_steps=[8, 16]")
	f.Add("prices.gpu_hourly={H100 = 2.5, CPU = 1.5}")
	f.Add("loop.policy.steps=16,24,32")
	f.Add("reward.r.value=clip(gain, -c, c)")
	f.Fuzz(func(t *testing.T, arg string) {
		sets, ds := ParseSettings([]string{arg})
		if len(sets)+len(ds) != 1 {
			t.Fatalf("%q: %d settings and %d diagnostics", arg, len(sets), len(ds))
		}
		for _, st := range sets {
			if st.Range.Start.Column < 1 || st.PathRange.End.Column < st.PathRange.Start.Column {
				t.Fatalf("%q: bad ranges %+v", arg, st)
			}
		}
	})
}

// wantPositioned compiles the spec at path, edited, and wants an error of
// code at a position.
func wantPositioned(t *testing.T, path string, edit func(*spec.Spec), code string) {
	t.Helper()
	s := loadSpec(t, path)
	edit(s)
	_, ds := Compile(s, Options{})
	for _, d := range ds {
		if d.Code == code && d.Severity == diag.Error && d.Range.Valid() {
			return
		}
	}
	t.Fatalf("want a positioned %s, got:\n%s", code, ds.Format(0))
}

func hasCode(ds diag.Diagnostics, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

// TestSetEveryField checks that --set reaches lists, maps, map entries,
// formulas and references, typed by the schema, each changing the plan
// and its hash; that V1,V2,... makes a sweep axis; and that a bad value is
// refused at its own column inside the flag.
func TestSetEveryField(t *testing.T) {
	t.Parallel()
	s, ds := hcl.Load("base.hcl", []byte(readBase(t)), hcl.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	base, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	compile := func(args ...string) *plan.Plan {
		t.Helper()
		sets, ds := ParseSettings(args)
		if len(ds) != 0 {
			t.Fatal(ds.Format(0))
		}
		p, ds := Compile(s, Options{Set: sets})
		if ds.HasErrors() {
			t.Fatalf("--set %v:\n%s", args, ds.Format(0))
		}
		if p.Hash == base.Hash {
			t.Errorf("--set %v did not change the plan hash", args)
		}
		return p
	}
	p := compile("calibration.after_steps=[4, 12]", "calibration.budget=[3,3]")
	var got []int
	for _, r := range p.Variants[0].PhaseOf(plan.PhaseRL).RL.Calibration.Rounds {
		got = append(got, r.AfterStep)
	}
	if len(got) != 2 || got[0] != 4 || got[1] != 12 {
		t.Errorf("after_steps = %v, want [4 12]", got)
	}
	if got := p.Overrides["calibration.after_steps"]; !reflect.DeepEqual(got, []any{4.0, 12.0}) {
		t.Errorf("overrides[after_steps] = %#v", got)
	}
	p = compile("plugin.tinylm.config.steps=300")
	if got := p.Variants[0].Plugins[1].Config["steps"]; got != 300.0 {
		t.Errorf("tinylm config = %v, want steps 300", p.Variants[0].Plugins[1].Config)
	}
	p = compile("plugin.tinylm.config.corpus=opticks")
	if got := p.Variants[0].Plugins[1].Config["corpus"]; got != "opticks" {
		t.Errorf("tinylm config = %v, want corpus opticks", p.Variants[0].Plugins[1].Config)
	}
	p = compile("prices.gpu_hourly.CPU=1.5")
	if got := p.Variants[0].Prices; got["CPU"] != 1.5 || got["B200"] != 14 {
		t.Errorf("prices = %v, want CPU 1.5 beside B200 14", got)
	}
	p = compile("prices.gpu_hourly={B200 = 9}")
	if got := p.Variants[0].Prices["B200"]; got != 9 {
		t.Errorf("prices = %v, want B200 9", p.Variants[0].Prices)
	}
	p = compile("reward.rwm_gain.value=clip(predicted_gain / scale, -2, 2)")
	if got := p.Variants[0].Rewards[0].Value.Source; got != "clip(predicted_gain / scale, -2, 2)" {
		t.Errorf("reward value = %q", got)
	}
	compile("critic.screen.expected_routed={low = 0.2, expected = 0.3, high = 0.5}")

	// V1,V2,... is a sweep axis: one variant per value.
	p = compile("loop.policy.steps=16,24,32", "calibration.after_steps=[8]", "calibration.budget=[5]")
	if len(p.Variants) != 3 || p.Variants[2].Overrides["loop.policy.steps"] != 32.0 {
		t.Fatalf("variants = %d, want 3 with steps 16, 24, 32", len(p.Variants))
	}

	for _, tc := range []struct{ arg, code, col, summary string }{
		{"calibration.after_steps=[8, 1.5]", CodeSetValue, "--set:1:29", "takes a whole number, got 1.5"},
		{"calibration.after_steps=[8, 16", CodeSetValue, "--set:1:25", "no closing ]"},
		{"calibration.after_steps=8", CodeSetValue, "--set:1:25", "takes a list"},
		{"prices.gpu_hourly.CPU=cheap", CodeSetValue, "--set:1:23", `takes a number, got "cheap"`},
		{"prices.gpu_hourly={CPU = x}", CodeSetValue, "--set:1:26", "double quotes"},
		{"loop.policy.steps.x=1", CodeSetPath, "--set:1:1", "has no entries"},
		{"plugin.tinylm.config.steps=many", "E_PLUGIN_CONFIG", "--set:1:28", "want a number"},
		{"plugin.tinylm.config.stepz=3", "E_PLUGIN_CONFIG", "--set:1:28", "config.stepz"},
		{"reward.rwm_gain.value=clip(predicted_gain, -c", "E_FORMULA_SYNTAX", "--set:1:46", ""},
		{"reward.rwm_gain.value=gain_typo * 2", "E_FORMULA_NAME", "--set:1:23", "gain_typo"},
		{"loop.policy.reward=verified", CodeSetValue, "--set:1:20", "kind.name"},
		{"loop.policy.reward=reward.nope", "E_UNKNOWN_REF", "--set:1:20", "reward.nope"},
		{"loop.policy.steps=16,x,32", CodeSetValue, "--set:1:22", "whole number"},
		{"loop.policy.steps=16,0", "E_RANGE", "--set:1:22", "at least 1"},
		{"calibration.after_steps=[8],[16]", CodeSetPath, "--set:1:1", "list(int)"},
	} {
		sets, ds := ParseSettings([]string{tc.arg})
		if !ds.HasErrors() {
			_, ds = Compile(s, Options{Set: sets})
		}
		found := false
		for _, d := range ds {
			if d.Code == tc.code && d.Range.String() == tc.col && strings.Contains(d.Summary, tc.summary) {
				found = true
			}
		}
		if !found {
			t.Errorf("--set %s: want %s at %s containing %q, got:\n%s", tc.arg, tc.code, tc.col, tc.summary, ds.Format(0))
		}
	}
}
