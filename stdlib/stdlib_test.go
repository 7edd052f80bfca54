package stdlib

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

func TestEveryPresetLoads(t *testing.T) {
	for _, n := range []string{"dapo", "grpo", "openevolve", "critic-grpo"} {
		l, ok := LoopPreset(n)
		if !ok || !l.Kind.Set {
			t.Errorf("loop preset %q missing or without kind: %+v", n, l)
		}
	}
	p, ok := PricePreset("cloud-2026")
	if !ok {
		t.Fatal("no cloud-2026")
	}
	for _, g := range []string{"B200", "H200", "H100", "A100", "L4", "CPU"} {
		if p.GPU.V[g] <= 0 {
			t.Errorf("cloud-2026 lacks a price for %s", g)
		}
	}
}

func at(line int) diag.Range {
	return diag.Range{Filename: "x.hcl", Start: diag.Pos{Line: line, Column: 3}}
}

func TestApplyPresetsSpecWins(t *testing.T) {
	s := &spec.Spec{
		Loops: []*spec.Loop{{
			Name:              "policy",
			Preset:            spec.Of("dapo", at(2)),
			ProposalsPerState: spec.Of(4, at(3)),
			ZeroVariance:      spec.Of("keep", at(4)),
		}},
		Prices: &spec.Prices{
			Preset: spec.Of("cloud-2026", at(10)),
			GPU:    spec.Of(map[string]float64{"B200": 9.5, "TPU": 2}, at(11)),
		},
	}
	if d := ApplyPresets(s); d.HasErrors() {
		t.Fatal(d)
	}
	l := s.Loops[0]
	if l.ProposalsPerState.V != 4 || l.ZeroVariance.V != "keep" {
		t.Errorf("spec values overwritten: %+v", l)
	}
	if l.Algorithm.V != "dapo" || !l.Algorithm.Set || l.Algorithm.Range != at(2) {
		t.Errorf("algorithm = %+v, want dapo from the preset line", l.Algorithm)
	}
	if l.RolloutEvery.V != 1 || l.Kind.V != "rl" {
		t.Errorf("unset fields not filled: %+v", l)
	}
	g := s.Prices.GPU.V
	if g["B200"] != 9.5 || g["TPU"] != 2 || g["H100"] != 6.98 {
		t.Errorf("prices = %v", g)
	}
	// The preset table itself must not change.
	p, _ := PricePreset("cloud-2026")
	if p.GPU.V["B200"] != 14 || p.GPU.V["TPU"] != 0 {
		t.Errorf("preset mutated: %v", p.GPU.V)
	}
}

func TestApplyPresetsPricesOnlyPreset(t *testing.T) {
	s := &spec.Spec{Prices: &spec.Prices{Preset: spec.Of("cloud-2026", at(1))}}
	ApplyPresets(s)
	s.Prices.GPU.V["H100"] = 1
	p, _ := PricePreset("cloud-2026")
	if p.GPU.V["H100"] == 1 {
		t.Fatal("spec shares the preset's map")
	}
}

func TestApplyPresetsUnknown(t *testing.T) {
	s := &spec.Spec{
		Loops:  []*spec.Loop{{Name: "l", Preset: spec.Of("dapoo", at(5))}},
		Prices: &spec.Prices{Preset: spec.Of("cloud-2025", at(9))},
	}
	d := ApplyPresets(s)
	if len(d) != 2 {
		t.Fatalf("diagnostics = %v", d)
	}
	if d[0].Code != "E_PRESET_UNKNOWN" || d[0].Range != at(5) ||
		!strings.Contains(d[0].Detail, `did you mean "dapo"`) || !strings.Contains(d[0].Detail, "critic-grpo, dapo, grpo, openevolve") {
		t.Errorf("loop diagnostic = %+v", d[0])
	}
	if !strings.Contains(d[1].Detail, "cloud-2026") || d[1].Range != at(9) {
		t.Errorf("price diagnostic = %+v", d[1])
	}
}

func TestDurations(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		err  string
	}{
		{"90m", 1.5, ""},
		{"1h30m", 1.5, ""},
		{"5.625h", 5.625, ""},
		{"5h37m30s", 5.625, ""},
		{"2d", 48, ""},
		{" 45m ", 0.75, ""},
		{"", 0, "empty"},
		{"90", 0, "no unit"},
		{"1w", 0, "unknown unit"},
		{"h", 0, "expected a number"},
		{"1..5h", 0, "not a number"},
	}
	for _, c := range cases {
		got, err := Hours(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Hours(%q) error = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Hours(%q) = %v, %v, want %v", c.in, got, err, c.want)
		}
	}
}

func TestFunctionsTable(t *testing.T) {
	cases := []struct {
		name string
		args []any
		want any
		err  bool
	}{
		{"hours", []any{"90m"}, 1.5, false},
		{"seconds", []any{"4m"}, 240.0, false},
		{"minutes", []any{90.0}, 1.5, false},
		{"days", []any{2.0}, 48.0, false},
		{"gpu_hours", []any{8.0, 5.625}, 45.0, false},
		{"per_million", []any{0.002, 1000.0}, 2.0, false},
		{"per_million", []any{1.0, 0.0}, nil, true},
		{"percent", []any{36.3}, 0.363, false},
		{"spread", []any{100.0, 3.0}, []float64{34, 33, 33}, false},
		{"spread", []any{100.0, 0.0}, nil, true},
		{"spread", []any{10.5, 2.0}, nil, true},
	}
	for _, c := range cases {
		f, ok := FunctionNamed(c.name)
		if !ok {
			t.Fatalf("no function %q", c.name)
		}
		if len(c.args) != len(f.Params) {
			t.Fatalf("%s takes %d params", c.name, len(f.Params))
		}
		got, err := f.Call(c.args)
		if (err != nil) != c.err {
			t.Errorf("%s%v error = %v", c.name, c.args, err)
		}
		if c.err || err != nil {
			continue
		}
		if x, ok := got.(float64); ok {
			if math.Abs(x-c.want.(float64)) > 1e-9 {
				t.Errorf("%s%v = %v, want %v", c.name, c.args, got, c.want)
			}
		} else if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s%v = %v, want %v", c.name, c.args, got, c.want)
		}
	}
	for _, f := range Functions {
		if f.Doc == "" || f.Result == "" || f.Call == nil {
			t.Errorf("function %q is incomplete", f.Name)
		}
	}
}

func TestDecodeJSONUnknownField(t *testing.T) {
	var l spec.Loop
	err := DecodeJSON([]byte(`{"step": 3}`), reflect.ValueOf(&l).Elem(), spec.Describe().Field("loop").Block)
	if err == nil || !strings.Contains(err.Error(), `did you mean "steps"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestApplyPresetsCopies: a preset reaches the spec through spec.Merge over
// a deep copy of the preset, so changing the merged spec (as --set and
// sweeps do) never changes the preset table, and every inherited value
// points at the preset line.
func TestApplyPresetsCopies(t *testing.T) {
	at := diag.Range{Filename: "s.hcl", Start: diag.Pos{Line: 3, Column: 3}, End: diag.Pos{Line: 3, Column: 9}}
	name := diag.Range{Filename: "s.hcl", Start: diag.Pos{Line: 2, Column: 1}, End: diag.Pos{Line: 2, Column: 5}}
	s := &spec.Spec{Loops: []*spec.Loop{{Name: "evolve", NameRange: name, Preset: spec.Of("openevolve", at), Islands: spec.Of(2, name)}}}
	if d := ApplyPresets(s); d.HasErrors() {
		t.Fatal(d.Format(0))
	}
	l := s.Loops[0]
	if l.Name != "evolve" || l.NameRange != name || l.Islands.V != 2 || l.Islands.Range != name {
		t.Errorf("the spec's own values changed: %+v", l)
	}
	if !l.FeatureBins.Set || l.FeatureBins.Range != at {
		t.Fatalf("feature_bins from the preset: %+v, want set at the preset line", l.FeatureBins)
	}
	for k := range l.FeatureBins.V {
		l.FeatureBins.V[k] = -1
	}
	p, _ := LoopPreset("openevolve")
	for k, v := range p.FeatureBins.V {
		if v == -1 {
			t.Errorf("changing the merged spec changed the preset table's feature_bins[%s]", k)
		}
	}
}
