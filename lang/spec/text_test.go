package spec

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
)

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		text string
		want any
	}{
		{"300", 300.0},
		{" -1.5e2 ", -150.0},
		{"true", true},
		{`"a, b"`, "a, b"},
		{"gpt-5 mini", "gpt-5 mini"},
		{"[8, 16]", []any{8.0, 16.0}},
		{"[ ]", []any{}},
		{"[8,16,]", []any{8.0, 16.0}},
		{`{H100 = 2.5, "CPU": 1.5}`, map[string]any{"H100": 2.5, "CPU": 1.5}},
		{`{a = [1, {b = "x"}]}`, map[string]any{"a": []any{1.0, map[string]any{"b": "x"}}}},
		{"0x10", "0x10"}, // not a number a spec could write
		{"NaN", "NaN"},
	} {
		n, err := parseText(tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if got := n.plain(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.text, got, tc.want)
		}
	}
	for _, tc := range []struct {
		text     string
		off, end int
		msg      string
	}{
		{"", 0, 1, "empty"},
		{"[8, 16", 0, 1, "no closing ]"},
		{"[8 16]", 3, 4, "write ,"},
		{"[8, x]", 4, 5, "double quotes"},
		{"{a = 1, a = 2}", 8, 9, "twice"},
		{"{a 1}", 3, 4, "write = or :"},
		{`"open`, 0, 5, "no closing"},
		{"[1] 2", 4, 5, "after the value"},
		{"{= 1}", 1, 2, "key is expected"},
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), 33, 34, "nests"},
	} {
		_, err := parseText(tc.text)
		if err == nil || err.Off != tc.off || err.End != tc.end || !strings.Contains(err.Msg, tc.msg) {
			t.Errorf("%q: got %+v, want [%d, %d) containing %q", tc.text, err, tc.off, tc.end, tc.msg)
		}
	}
}

func TestSplitTop(t *testing.T) {
	for text, want := range map[string][]string{
		"1,2,3":                     {"1", "2", "3"},
		"[8, 16]":                   {"[8, 16]"},
		`"a, b",c`:                  {`"a, b"`, "c"},
		"clip(x, -c, c)":            {"clip(x, -c, c)"},
		`{a = "x,\"y"}, [1,2]`:      {`{a = "x,\"y"}`, " [1,2]"},
		"a,":                        {"a", ""},
		"unbalanced ] , still here": {"unbalanced ] ", " still here"},
	} {
		parts, offs := SplitTop(text)
		if !reflect.DeepEqual(parts, want) {
			t.Errorf("SplitTop(%q) = %q, want %q", text, parts, want)
		}
		for i, p := range parts {
			if text[offs[i]:offs[i]+len(p)] != p {
				t.Errorf("SplitTop(%q): part %q is not at offset %d", text, p, offs[i])
			}
		}
	}
}

// SetText leaves the caller's maps alone: a sweep's variants share them.
func TestSetTextCopiesMaps(t *testing.T) {
	prices := map[string]float64{"B200": 14}
	s := &Spec{Prices: &Prices{GPU: Of(prices, diag.Range{})}}
	if _, err := SetText(s, "prices.gpu_hourly.CPU", "1.5", diag.Range{}); err != nil {
		t.Fatal(err)
	}
	if len(prices) != 1 || s.Prices.GPU.V["CPU"] != 1.5 || s.Prices.GPU.V["B200"] != 14 {
		t.Errorf("original %v, set %v", prices, s.Prices.GPU.V)
	}
	s = &Spec{Plugins: []*Plugin{{Name: "p", Config: Of(map[string]any{"a": map[string]any{"b": 1.0}, "n": 2.0}, diag.Range{})}}}
	if _, err := SetText(s, "plugin.p.config.a.c", "x", diag.Range{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": map[string]any{"b": 1.0, "c": "x"}, "n": 2.0}
	if !reflect.DeepEqual(s.Plugins[0].Config.V, want) {
		t.Errorf("config = %v, want %v", s.Plugins[0].Config.V, want)
	}
	_, err := SetText(s, "plugin.p.config.n.x", "1", diag.Range{})
	var te *TextError
	if !errors.As(err, &te) || !te.Path || !strings.Contains(te.Msg, "not a map") {
		t.Errorf("an entry under a number: got %v", err)
	}
}

// FuzzSetText sets fuzzed text on fields of every kind: it never panics,
// and an error about the value lies inside the text.
func FuzzSetText(f *testing.F) {
	for _, seed := range []string{"300", "[8, 16]", "{H100 = 2.5}", `"x, y"`, "[[[", "{a = [1, {b = \"x\"}]}", "role.rwm", "1e400", "-", "{\"\\u00e9\": 1}"} {
		f.Add(seed)
	}
	paths := []string{"calibration.after_steps", "prices.gpu_hourly", "prices.gpu_hourly.CPU", "plugin.p.config", "plugin.p.config.a.b", "seed", "name", "loop.l.screen", "role.r.build_failures", "reward.w.value"}
	f.Fuzz(func(t *testing.T, text string) {
		for _, path := range paths {
			s := &Spec{
				Plugins: []*Plugin{{Name: "p"}},
				Loops:   []*Loop{{Name: "l"}},
				Roles:   []*Role{{Name: "r"}},
				Rewards: []*Reward{{Name: "w"}},
			}
			_, err := SetText(s, path, text, diag.Range{})
			var te *TextError
			if err == nil {
				continue
			}
			if !errors.As(err, &te) {
				t.Fatalf("%s=%q: %T %v, want a *TextError", path, text, err, err)
			}
			if !te.Path && (te.Off < 0 || te.End <= te.Off || te.Off > len(text)) {
				t.Fatalf("%s=%q: error at [%d, %d) outside the text: %s", path, text, te.Off, te.End, te.Msg)
			}
		}
	})
}
