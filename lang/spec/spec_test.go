package spec

import (
	"github.com/assay-lang/assay/lang/diag"
	"strings"
	"testing"
)

func sample() *Spec {
	return &Spec{
		Critics: []*Critic{{Name: "screen", Votes: Of(16, rangeAt(3))}},
		Loops:   []*Loop{{Name: "rl", Steps: Of(96, rangeAt(5))}},
	}
}

func TestSetAndGetPath(t *testing.T) {
	s := sample()
	if err := SetPath(s, "critic.screen.votes", Literal{Num: 8}); err != nil {
		t.Fatal(err)
	}
	if s.Critics[0].Votes.V != 8 {
		t.Fatalf("votes = %d, want 8", s.Critics[0].Votes.V)
	}
	if err := SetPath(s, "budget.real_runs", Literal{Num: 200}); err != nil {
		t.Fatal(err)
	}
	got, err := GetPath(s, "budget.real_runs")
	if err != nil || got != 200.0 {
		t.Fatalf("budget.real_runs = %v, %v", got, err)
	}
}

func TestSetPathErrors(t *testing.T) {
	cases := map[string]struct {
		path string
		lit  Literal
		want string
	}{
		"typo label":    {"critic.scren.votes", Literal{Num: 8}, `did you mean "screen"`},
		"typo field":    {"critic.screen.vote", Literal{Num: 8}, `did you mean "votes"`},
		"not whole":     {"critic.screen.votes", Literal{Num: 8.5}, "whole number"},
		"bad enum":      {"critic.screen.labels", Literal{Kind: LitString, Str: "4way"}, "must be one of"},
		"list field":    {"calibration.after_steps", Literal{Num: 1}, "only string"},
		"block path":    {"critic.screen", Literal{Num: 1}, "names a block"},
		"attr as block": {"seed.x", Literal{Num: 1}, "is an attribute"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := SetPath(sample(), c.path, c.lit)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("SetPath(%q) error = %v, want it to contain %q", c.path, err, c.want)
			}
		})
	}
}

func TestTreeDropsRangesAndUnset(t *testing.T) {
	a, b := sample(), sample()
	b.Critics[0].Votes.Range = rangeAt(40)
	ta, tb := Tree(a), Tree(b)
	if ta["critic"].(map[string]any)["screen"].(map[string]any)["votes"] != 16.0 {
		t.Fatalf("tree = %v", ta)
	}
	if _, ok := ta["budget"]; ok {
		t.Fatal("unset block appears in tree")
	}
	if len(ta) != len(tb) {
		t.Fatal("trees differ")
	}
}

func TestDescribeCoversEveryTaggedField(t *testing.T) {
	root := Describe()
	for _, name := range []string{"environment", "role", "reward", "critic", "loop", "calibration", "budget", "sweep"} {
		if root.Field(name) == nil {
			t.Errorf("schema lacks %q", name)
		}
	}
	if f := root.Field("reward").Block.Field("value"); f == nil || f.Type != "formula" {
		t.Errorf("reward.value type = %+v, want formula", f)
	}
}

func rangeAt(line int) (r diag.Range) {
	r.Filename = "x.hcl"
	r.Start.Line = line
	r.Start.Column = 1
	return
}

// FuzzSpread reads arbitrary JSON as an assumed figure: it never panics,
// and what it reads writes back to the same figure.
func FuzzSpread(f *testing.F) {
	for _, s := range []string{`0.363`, `{"low": 0, "expected": 0.05, "high": 0.5}`, `{"low": 1}`, `[1, 2]`, `"x"`, `{"low":1,"expected":2,"high":3,"x":4}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var sp Spread
		if sp.UnmarshalJSON([]byte(s)) != nil {
			return
		}
		b, err := sp.MarshalJSON()
		if err != nil {
			return // a NaN or infinity read from JSON cannot be written back
		}
		var back Spread
		if err := back.UnmarshalJSON(b); err != nil || back != sp {
			t.Fatalf("%s: read %+v, wrote %s, read back %+v (%v)", s, sp, b, back, err)
		}
	})
}

// Every path SettablePaths offers can be set from text.
func TestSettablePaths(t *testing.T) {
	s := &Spec{Critics: []*Critic{{Name: "screen"}}}
	paths := SettablePaths(s)
	has := map[string]bool{}
	for _, p := range paths {
		has[p] = true
	}
	for _, want := range []string{"critic.screen.votes", "budget.usd", "seed", "critic.screen.role", "critic.screen.route", "calibration.after_steps", "prices.gpu_hourly"} {
		if !has[want] {
			t.Errorf("SettablePaths lacks %s", want)
		}
	}
	for _, bad := range []string{"sweep.mode", "extends"} {
		if has[bad] {
			t.Errorf("SettablePaths offers %s", bad)
		}
	}
	for _, p := range paths {
		f, err := schemaField(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		text, ok := map[string]string{"string": "x", "number": "1", "int": "1", "bool": "true", "spread": "0.5",
			"ref": "role.x", "formula": "gain", "list(int)": "[1, 2]", "map(number)": "{a = 1}", "map(any)": "{a = \"x\"}"}[f.Type]
		if !ok {
			t.Fatalf("%s: no text for type %s", p, f.Type)
		}
		if len(f.Enum) > 0 {
			text = f.Enum[0]
		}
		if _, err := SetText(s, p, text, diag.Range{}); err != nil {
			t.Errorf("SetText(%s): %v", p, err)
		}
	}
}
