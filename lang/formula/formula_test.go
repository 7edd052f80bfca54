package formula

import (
	"math"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
)

// at is the range of an attribute whose quoted value starts at line 7,
// column 16 (the opening quote): the formula's first byte is column 17.
var at = diag.Range{Filename: "spec.hcl", Start: diag.Pos{Line: 7, Column: 16, Byte: 100}, End: diag.Pos{Line: 7, Column: 60, Byte: 144}}

func TestParseString(t *testing.T) {
	tests := []struct{ src, want string }{
		{"1", "1"},
		{"1.50", "1.5"},
		{"1e3", "1000"},
		{".5", "0.5"},
		{"clip(predicted_gain/scale,-c,c)+diversity_bonus", "clip(predicted_gain / scale, -c, c) + diversity_bonus"},
		{"(a + b) * c", "(a + b) * c"},
		{"a + (b * c)", "a + b * c"},
		{"a - (b - c)", "a - (b - c)"},
		{"(a - b) - c", "a - b - c"},
		{"a / (b / c)", "a / (b / c)"},
		{"-(a + b)", "-(a + b)"},
		{"- -a", "--a"},
		{"!(a && b) || c", "!(a && b) || c"},
		{"a || b && c", "a || b && c"},
		{"(a || b) && c", "(a || b) && c"},
		{"uncertainty>=threshold", "uncertainty >= threshold"},
		{"(a < b) == (c < d)", "(a < b) == (c < d)"},
		{"a ? b : c ? d : e", "a ? b : c ? d : e"},
		{"(a ? b : c) ? d : e", "(a ? b : c) ? d : e"},
		{"a ? (b ? 1 : 2) : 3", "a ? b ? 1 : 2 : 3"},
		{"min(a, b, c)", "min(a, b, c)"},
		{"max()", "max()"},
		{"task.scale", "task.scale"},
		{"!true||false", "!true || false"},
		{"1e21", "1e+21"},
		{"  a\n  + b ", "a + b"},
	}
	for _, tc := range tests {
		e, diags := Parse(tc.src, at)
		if diags.HasErrors() {
			t.Errorf("Parse(%q): %v", tc.src, diags)
			continue
		}
		got := e.String()
		if got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.src, got, tc.want)
		}
		// Canonical rendering is idempotent.
		e2, diags := Parse(got, at)
		if diags.HasErrors() {
			t.Errorf("reparse %q: %v", got, diags)
			continue
		}
		if again := e2.String(); again != got {
			t.Errorf("String not idempotent: %q -> %q", got, again)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		src     string
		col     int // column of the diagnostic (formula offset + 17)
		summary string
		detail  string
	}{
		{"", 17, "empty formula", "write an expression"},
		{"   ", 17, "empty formula", ""},
		{"a +", 20, "unexpected end of formula", ""},
		{"a + * b", 21, `unexpected token "*"`, ""},
		{"clip(a, b", 26, "unexpected end of formula", ""},
		{"a = b", 19, `unexpected token "="`, "compare with =="},
		{"a < b < c", 23, `unexpected token "<"`, ""},
		{"a @ b", 19, "invalid input text", "formulas use"},
		{"(a", 19, "unexpected end of formula", ""},
		{"a b", 19, `unexpected token "b"`, ""},
		{"a ? b", 22, "unexpected end of formula", ""},
		{"1e999", 17, "out of range", "64-bit float"},
		{strings.Repeat("(", 100) + "a" + strings.Repeat(")", 100), 17 + 64, "nests too deeply", ""},
		{strings.Repeat("-", 100) + "a", 17 + 64, "nests too deeply", ""},
		{strings.Repeat("a+", 3000) + "a", 17, "too long", ""},
	}
	for _, tc := range tests {
		e, diags := Parse(tc.src, at)
		if e != nil || len(diags) != 1 {
			t.Errorf("Parse(%q) = %v, %v; want one error", tc.src, e, diags)
			continue
		}
		d := diags[0]
		if d.Code != "E_FORMULA_SYNTAX" || !strings.Contains(d.Summary, tc.summary) || !strings.Contains(d.Detail, tc.detail) {
			t.Errorf("Parse(%q): got %s %q (%q); want E_FORMULA_SYNTAX %q (%q)", tc.src, d.Code, d.Summary, d.Detail, tc.summary, tc.detail)
		}
		if d.Range.Filename != "spec.hcl" || d.Range.Start.Line != 7 || d.Range.Start.Column != tc.col {
			t.Errorf("Parse(%q): at %s, want spec.hcl:7:%d", tc.src, d.Range, tc.col)
		}
	}
}

func TestMultiLinePosition(t *testing.T) {
	_, diags := Parse("a +\n  * b", at)
	if len(diags) != 1 {
		t.Fatalf("want one diagnostic, got %v", diags)
	}
	if r := diags[0].Range; r.Start.Line != 8 || r.Start.Column != 3 {
		t.Errorf("got %s, want line 8 column 3", r)
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		src    string
		vars   map[string]Type
		want   Type
		code   string // "" means no diagnostics
		col    int    // column of the first diagnostic
		end    int    // end column of the first diagnostic
		substr string // in summary or detail
	}{
		{"clip(predicted_gain / scale, -c, c) + diversity_bonus", RewardVars, Number, "", 0, 0, ""},
		{"-c", InfeasibleVars, Number, "", 0, 0, ""},
		{"min_valid - delta", RepeatVars, Number, "", 0, 0, ""},
		{"uncertainty >= threshold", RouteVars, Bool, "", 0, 0, ""},
		{"uncertainty >= threshold || improve_share < 0.5 && votes > 8", RouteVars, Bool, "", 0, 0, ""},
		{"label_score > 0 ? 1 : -1", RewardVars, Number, "", 0, 0, ""},
		{"!(agreement == 1)", RouteVars, Bool, "", 0, 0, ""},
		{"(votes > 1) == (agreement > 0.5)", RouteVars, Bool, "", 0, 0, ""},
		{"pow(abs(gain), 0.5) + log(scale) + exp(0) + sqrt(baseline) + max(1, 2, 3)", RewardVars, Number, "", 0, 0, ""},
		// Names.
		{"clip(predicted_gian / scale, -c, c)", RewardVars, Number, "E_FORMULA_NAME", 22, 36, `did you mean "predicted_gain"?`},
		{"uncertainty >= treshold", RouteVars, Bool, "E_FORMULA_NAME", 32, 40, `did you mean "threshold"?`},
		{"task.scale", RewardVars, Number, "E_FORMULA_NAME", 17, 27, `did you mean "scale"?`},
		{"zzz", RewardVars, Number, "E_FORMULA_NAME", 17, 20, "This formula may use: baseline, c,"},
		{"clp(gain, -c, c)", RewardVars, Number, "E_FORMULA_NAME", 17, 33, `did you mean "clip"?`},
		{"clip + 1", RewardVars, Number, "E_FORMULA_NAME", 17, 21, "call it: clip(x, lo, hi)"},
		{"predicted_gain", RouteVars, Bool, "E_FORMULA_NAME", 17, 31, ""},
		// Types.
		{"uncertainty + true_", RouteVars, Number, "E_FORMULA_NAME", 31, 36, ""},
		{"uncertainty + true", RouteVars, Number, "E_FORMULA_TYPE", 31, 35, "operand of + must be a number, not a bool"},
		{"true && !false", RouteVars, Bool, "", 0, 0, ""},
		{"uncertainty + (votes > 1)", RouteVars, Number, "E_FORMULA_TYPE", 31, 42, "operand of + must be a number, not a bool"},
		{"uncertainty", RouteVars, Bool, "E_FORMULA_TYPE", 17, 28, "formula is number, but a bool is wanted"},
		{"gain > 0", RewardVars, Number, "E_FORMULA_TYPE", 17, 25, "formula is bool, but a number is wanted"},
		{"clip(gain, c)", RewardVars, Number, "E_FORMULA_TYPE", 17, 30, "clip takes 3 arguments, got 2"},
		{"abs()", RewardVars, Number, "E_FORMULA_TYPE", 17, 22, "abs takes 1 argument, got 0"},
		{"min(gain)", RewardVars, Number, "E_FORMULA_TYPE", 17, 26, "min takes 2 or more arguments"},
		{"abs(gain > 0)", RewardVars, Number, "E_FORMULA_TYPE", 21, 29, "argument 1 of abs must be a number"},
		{"gain ? 1 : 0", RewardVars, Number, "E_FORMULA_TYPE", 17, 21, "condition of ?: must be a bool"},
		{"gain > 0 ? 1 : gain > 1", RewardVars, Number, "E_FORMULA_TYPE", 32, 40, "the branches of ?: differ"},
		{"!gain", RewardVars, Number, "E_FORMULA_TYPE", 18, 22, "operand of ! must be a bool"},
		{"-(gain > 0)", RewardVars, Number, "E_FORMULA_TYPE", 18, 28, "operand of - must be a number"},
		{"gain && c", RewardVars, Bool, "E_FORMULA_TYPE", 17, 21, "operand of && must be a bool"},
		{"gain == (c > 0)", RewardVars, Bool, "E_FORMULA_TYPE", 17, 32, "== compares a number with a bool"},
	}
	for _, tc := range tests {
		e, diags := Parse(tc.src, at)
		if diags.HasErrors() {
			t.Errorf("Parse(%q): %v", tc.src, diags)
			continue
		}
		diags = e.Check(tc.vars, tc.want)
		if tc.code == "" {
			if len(diags) != 0 {
				t.Errorf("Check(%q): unexpected %v", tc.src, diags)
			}
			continue
		}
		if len(diags) == 0 {
			t.Errorf("Check(%q): no diagnostics, want %s", tc.src, tc.code)
			continue
		}
		d := diags[0]
		if d.Code != tc.code || !strings.Contains(d.Summary+" | "+d.Detail, tc.substr) {
			t.Errorf("Check(%q): got %s %q | %q; want %s containing %q", tc.src, d.Code, d.Summary, d.Detail, tc.code, tc.substr)
		}
		if d.Range.Start.Line != 7 || d.Range.Start.Column != tc.col || d.Range.End.Column != tc.end {
			t.Errorf("Check(%q): range %d:%d-%d, want 7:%d-%d", tc.src, d.Range.Start.Line, d.Range.Start.Column, d.Range.End.Column, tc.col, tc.end)
		}
	}
}

func TestCheckReportsAll(t *testing.T) {
	e := MustParse("foo + bar * (gain > 0)")
	diags := e.Check(RewardVars, Number)
	if len(diags) != 3 {
		t.Fatalf("want 3 diagnostics (foo, bar, bool operand), got %v", diags)
	}
	// No follow-on error for the whole formula once a part failed.
	for _, d := range diags {
		if strings.Contains(d.Summary, "is wanted") {
			t.Errorf("follow-on error: %v", d)
		}
	}
}

func TestEval(t *testing.T) {
	env := Env{
		"predicted_gain": Num(0.3), "gain": Num(-0.2), "scale": Num(0.1), "c": Num(6),
		"diversity_bonus": Num(0.25), "baseline": Num(4), "zero": Num(0),
		"uncertainty": Num(0.25), "threshold": Num(0.25), "yes": BoolV(true), "no": BoolV(false),
	}
	tests := []struct {
		src  string
		want Value
	}{
		{"clip(predicted_gain / scale, -c, c) + diversity_bonus", Num(3.25)},
		{"clip(100, -c, c)", Num(6)},
		{"clip(-100, -c, c)", Num(-6)},
		{"-c", Num(-6)},
		{"1 + 2 * 3", Num(7)},
		{"(1 + 2) * 3", Num(9)},
		{"10 - 4 - 3", Num(3)},
		{"8 / 4 / 2", Num(1)},
		{"uncertainty >= threshold", BoolV(true)},
		{"uncertainty > threshold", BoolV(false)},
		{"uncertainty <= threshold && uncertainty < 1", BoolV(true)},
		{"uncertainty != threshold", BoolV(false)},
		{"yes == !no", BoolV(true)},
		{"true && !false", BoolV(true)},
		{"false || no", BoolV(false)},
		{"no || yes", BoolV(true)},
		{"gain > 0 ? 1 : -1", Num(-1)},
		{"gain < 0 ? 1 : gain > 0 ? 2 : 3", Num(1)},
		{"min(3, 1, 2)", Num(1)},
		{"max(3, 1, 2, 7)", Num(7)},
		{"abs(gain)", Num(0.2)},
		{"log(exp(2))", Num(2)},
		{"sqrt(baseline)", Num(2)},
		{"pow(2, 10)", Num(1024)},
		// Short-circuit: the right side would fail.
		{"zero > 0 && 1 / zero > 1", BoolV(false)},
		{"zero == 0 || log(zero) > 1", BoolV(true)},
		{"zero > 0 ? 1 / zero : 0", Num(0)},
	}
	for _, tc := range tests {
		e, diags := Parse(tc.src, at)
		if diags.HasErrors() {
			t.Errorf("Parse(%q): %v", tc.src, diags)
			continue
		}
		got, err := e.Eval(env)
		if err != nil {
			t.Errorf("Eval(%q): %v", tc.src, err)
			continue
		}
		if got.T != tc.want.T || got.Bool != tc.want.Bool || math.Abs(got.Num-tc.want.Num) > 1e-12 {
			t.Errorf("Eval(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	env := Env{"zero": Num(0), "neg": Num(-1), "big": Num(1e300), "yes": BoolV(true)}
	tests := []struct{ src, want string }{
		{"1 / zero", "1 / zero: division by zero"},
		{"log(zero)", "not positive"},
		{"sqrt(neg)", "sqrt of negative"},
		{"big * big", "not a finite number"},
		{"exp(1000)", "not a finite number"},
		{"missing + 1", `name "missing" is not bound`},
		{"yes + 1", "yes: is bool, want number"},
		{"zero ? 1 : 2", "is number, want bool"},
		{"yes == 1", "compares bool with number"},
		{"clip(1, 2, 1)", "clip bounds are reversed"},
		{"clip(1, 2)", "clip takes 3 arguments"},
		{"nofunc(1)", `unknown function "nofunc"`},
	}
	for _, tc := range tests {
		e := MustParse(tc.src)
		_, err := e.Eval(env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Eval(%q) error = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestVars(t *testing.T) {
	got := strings.Join(MustParse("clip(gain / scale, -c, c) + gain").Vars(), ",")
	if got != "gain,scale,c" {
		t.Errorf("Vars = %s", got)
	}
}

func TestNameTablesDocumented(t *testing.T) {
	for _, tab := range Tables() {
		for name := range tab.Vars {
			if VarDocs[name] == "" {
				t.Errorf("%s: name %q has no entry in VarDocs", tab.Name, name)
			}
			if lookupFunc(name) != nil {
				t.Errorf("%s: name %q shadows a function", tab.Name, name)
			}
		}
	}
	for _, f := range Functions {
		if f.Doc == "" || !strings.HasPrefix(f.Sig, f.Name+"(") {
			t.Errorf("function %s is not documented properly", f.Name)
		}
	}
}

func TestEvalDoesNotAllocate(t *testing.T) {
	e := MustParse("uncertainty >= threshold || clip(predicted_gain / scale, -c, c) + max(diversity_bonus, 0, 1) > 1")
	env := Env{"uncertainty": Num(0.1), "threshold": Num(0.25), "predicted_gain": Num(0.3), "scale": Num(0.1), "c": Num(6), "diversity_bonus": Num(0.1)}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := e.Eval(env); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Eval allocates %v times per run, want 0", allocs)
	}
}

func BenchmarkEvalReward(b *testing.B) {
	e := MustParse("clip(predicted_gain / scale, -c, c) + diversity_bonus")
	env := Env{"predicted_gain": Num(0.3), "scale": Num(0.1), "c": Num(6), "diversity_bonus": Num(0.25)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Eval(env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalRoute(b *testing.B) {
	e := MustParse("uncertainty >= threshold || improve_share < 0.5 && votes > 8")
	env := Env{"uncertainty": Num(0.1), "threshold": Num(0.25), "improve_share": Num(0.7), "votes": Num(16)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Eval(env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := Parse("clip(predicted_gain / scale, -c, c) + diversity_bonus", at); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

func TestIfHint(t *testing.T) {
	diags := MustParse("if(gain > 0, 1, -1)").Check(RewardVars, Number)
	if len(diags) == 0 || !strings.Contains(diags[0].Detail, "cond ? a : b") {
		t.Errorf("got %v", diags)
	}
}
