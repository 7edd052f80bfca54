package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

func hasUnsafe(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && unsafeRune(r) })
}

// Names reach the plan summary quoted: no control sequence, no forged line.
func TestPlanSummaryQuotesNames(t *testing.T) {
	mk := func(name string) *plan.Plan {
		return &plan.Plan{Name: name, Variants: []*plan.Variant{{Name: name, Phases: []*plan.Phase{{
			Name: name, Kind: "rl", RL: &plan.RLBody{Loop: name + "l", Calibration: &plan.Calibration{Select: name, Rounds: []*plan.CalibrationRound{{Name: name}}}},
			Calls: plan.Calls{RealRuns: map[string]plan.Count{name: plan.Exact(2)}, LLM: map[string]plan.Count{name: plan.Exact(3)}},
		}}}}}
	}
	var clean, hostile bytes.Buffer
	writePlanSummary(&clean, mk("ok"))
	writePlanSummary(&hostile, mk("ok\n\x1b[2J\u202efake line"))
	out := hostile.String()
	if hasUnsafe(out) {
		t.Errorf("raw control character in\n%q", out)
	}
	if strings.Count(out, "\n") != strings.Count(clean.String(), "\n") {
		t.Errorf("a name added lines:\n%s", out)
	}
	if !strings.Contains(out, `"ok\n\x1b[2J\u202efake line"`) {
		t.Errorf("name not quoted:\n%s", out)
	}
	if strings.Contains(clean.String(), `"ok"`) {
		t.Errorf("a plain name was quoted:\n%s", clean.String())
	}
}

func TestEscapeControls(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb\nc":              "a\tb\nc",
		"\x1b[31mred\x1b[0m":   `\x1b[31mred\x1b[0m`,
		"x\u202ey\u2066z\x7f":  `x\u202ey\u2066z\x7f`,
		"bad \xff byte \u0085": `bad \xff byte \x85`,
		"plain – ünïcode ✓ 模型": "plain – ünïcode ✓ 模型",
	} {
		if got := escapeControls(in); got != want {
			t.Errorf("escapeControls(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	err := writeEscaped(&b, func(w io.Writer) error { _, err := io.WriteString(w, "env \x1b]0;title\x07 |\n"); return err })
	if err != nil || b.String() != "env \\x1b]0;title\\x07 |\n" {
		t.Errorf("writeEscaped: %q %v", b.String(), err)
	}
}
