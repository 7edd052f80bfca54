package formula

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
)

// FuzzParse checks that no input makes Parse, Check, String or Eval panic,
// that diagnostics stay inside the formula, and that String round-trips.
// The seeds run as a normal test; go test -fuzz=FuzzParse explores further.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"clip(predicted_gain / scale, -c, c) + diversity_bonus",
		"-c", "min_valid - delta", "uncertainty >= threshold",
		"a ? b : c ? d : e", "!(x && y) || z", "max(1, 2, 3) / 0",
		"log(0)", "1e999", "a = b", "a < b < c", "((((", "))", "@",
		"clip(", "f(,)", "1..2", ".5e-3", "\x00", "é", "a\nb", "task.scale",
		"--!!-x", "1 / (2 - 2)", "pow(-1, 0.5)", "gain > 0 ? 1 : gain > 1",
	} {
		f.Add(s)
	}
	rng := diag.Range{Filename: "f.hcl", Start: diag.Pos{Line: 3, Column: 10, Byte: 40}}
	env := Env{}
	for name, t := range RewardVars {
		env[name] = Value{T: t, Num: 0.5}
	}
	env["votes"] = BoolV(true) // a wrongly typed binding must not panic Eval either
	f.Fuzz(func(t *testing.T, src string) {
		e, diags := Parse(src, rng)
		for _, d := range diags {
			if d.Code != "E_FORMULA_SYNTAX" || d.Range.Filename != "f.hcl" || d.Range.Start.Line < 3 {
				t.Fatalf("bad diagnostic for %q: %+v", src, d)
			}
		}
		if e == nil {
			if !diags.HasErrors() {
				t.Fatalf("nil Expr without errors for %q", src)
			}
			return
		}
		for _, want := range []Type{Number, Bool} {
			for _, d := range e.Check(RewardVars, want) {
				if d.Code != "E_FORMULA_NAME" && d.Code != "E_FORMULA_TYPE" {
					t.Fatalf("unexpected code %s for %q", d.Code, src)
				}
			}
		}
		v1, err1 := e.Eval(env)
		// The tree a plan carries rebuilds the same formula without parsing.
		// (Parse leaves unknown functions and wrong argument counts to
		// Check, which the compiler runs before a tree enters a plan.)
		et, err := FromTree(src, e.Tree())
		switch {
		case err != nil && !strings.Contains(err.Error(), "unknown function") && !strings.Contains(err.Error(), " takes "):
			t.Fatalf("FromTree of %q: %v", src, err)
		case err == nil:
			if et.String() != e.String() {
				t.Fatalf("FromTree of %q renders %q, want %q", src, et.String(), e.String())
			}
			if v2, err2 := et.Eval(env); (err1 == nil) != (err2 == nil) || (err1 == nil && v1 != v2) {
				t.Fatalf("%q evaluates to %v, %v parsed and %v, %v rebuilt", src, v1, err1, v2, err2)
			}
		}
		_, _ = e.Eval(nil)
		s := e.String()
		e2, diags := Parse(s, rng)
		if diags.HasErrors() {
			// Long canonical forms may pass the length limit; nothing else may fail.
			if len(s) > maxLen || strings.Contains(diags.Error(), "nests too deeply") {
				return
			}
			t.Fatalf("canonical form %q of %q does not parse: %v", s, src, diags)
		}
		if s2 := e2.String(); s2 != s {
			t.Fatalf("String not idempotent for %q: %q -> %q", src, s, s2)
		}
	})
}
