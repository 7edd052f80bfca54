package compiler

import (
	"strings"
	"testing"

	"assay/lang/diag"
	"assay/lang/hcl"
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
		{"loop.policy.reward=x", CodeSetPath, "--set:1:1", "only string, number, int and bool"},
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

func hasCode(ds diag.Diagnostics, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}
