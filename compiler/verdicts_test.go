package compiler

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
)

// threeTags is a judge answer block (base.hcl's judge is 3-way) read by
// the named group improvement, with verdict blocks for the given labels
// and their improvement values, and extra appended inside the block.
func threeTags(extra string, labels ...string) string {
	b := "  answer {\n    format  = \"pattern\"\n    pattern = \"(?s)\\\\[IMPROVEMENT\\\\]\\\\s*(?P<improvement>\\\\w+).*?\\\\[WINTIER\\\\]\\\\s*(?P<tier>\\\\w+)\"\n"
	for _, l := range labels {
		b += "    verdict \"" + l + "\" {\n      groups = { improvement = \"" + strings.ToLower(l) + "\" }\n    }\n"
	}
	return b + extra + "  }"
}

// Verdict blocks lower into the plan in block order with their groups,
// and change its hash.
func TestAnswerVerdictsLower(t *testing.T) {
	p, ds := compileSource(t, "s.hcl", []byte(judgeWith(t, threeTags("", "improve", "tie", "lose"))))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	var got []string
	for _, r := range p.Variants[0].Roles {
		if r.Name != "judge" || r.Answer == nil {
			continue
		}
		for _, v := range r.Answer.Verdicts {
			for _, g := range v.Groups {
				got = append(got, v.Label+":"+g.Group+"="+g.Value)
			}
		}
	}
	if want := "improve:improvement=improve tie:improvement=tie lose:improvement=lose"; strings.Join(got, " ") != want {
		t.Errorf("lowered verdicts %q, want %q", strings.Join(got, " "), want)
	}
}

func init() {
	specialFields["role.*.answer.verdict.*.groups"] = proveChanges(threeTags("", "improve", "tie", "lose"),
		strings.Replace(threeTags("", "improve", "tie", "lose"), `improvement = "lose"`, `improvement = "worse"`, 1))
}

// Each wrong verdict block is refused where it is written.
func TestAnswerVerdictsRefused(t *testing.T) {
	cases := []struct {
		block, code, at, msg string
	}{
		// The judge's critic is 3-way: BigWin is not its label.
		{threeTags("    verdict \"BigWin\" {\n      groups = { improvement = \"big\" }\n    }\n", "improve", "tie", "lose"), CodeEnum, "s.hcl:110:13", `verdict "BigWin" is not a label of the 3way label space its critic "screen" judges in`},
		{threeTags("", "improve", "tie"), CodeMissing, "s.hcl:98:", "no answer verdict reads label lose"},
		{threeTags("    verdict \"lose\" {\n      groups = { verdict = \"lose\" }\n    }\n", "improve", "tie"), CodeUnknownRef, "s.hcl:108:16", `reads group "verdict", which the pattern does not name`},
		{threeTags("    verdict \"lose\" {\n      groups = { improvement = 1 }\n    }\n", "improve", "tie"), CodeEnum, "s.hcl:108:16", "group improvement must read a non-empty string"},
		{threeTags("    verdict \"lose\" {\n      groups = {}\n    }\n", "improve", "tie"), CodeMissing, "s.hcl:108:16", `verdict "lose" names no group`},
		{threeTags("    verdict \"IMPROVE\" {\n      groups = { improvement = \"up\" }\n    }\n", "improve", "tie", "lose"), CodeDuplicate, "s.hcl:110:13", `verdict "IMPROVE" is given twice`},
		{"  answer {\n    format = \"json\"\n    verdict \"improve\" {\n      groups = { improvement = \"improve\" }\n    }\n  }", CodeNotApplicable, "s.hcl:100:", `verdict blocks read a pattern's named groups, but format is not "pattern"`},
		{"  answer {\n    format = \"pattern\"\n    pattern = \"verdict: (\\\\w+)\"\n    verdict \"improve\" {\n      groups = { improvement = \"improve\" }\n    }\n  }", CodeAnswerPattern, "s.hcl:100:", "its pattern has no named group"},
	}
	for _, c := range cases {
		_, ds := promptPlan(t, t.TempDir(), "s.hcl", judgeWith(t, c.block))
		assertDiag(t, c.block, ds, c.code, c.at, c.msg)
	}
	conflict := threeTags("    verdict \"lose\" {\n      groups = { improvement = \"lose\" }\n    }\n    verdict \"Lose\" {\n      groups = { improvement = \"lose\", tier = \"NA\" }\n    }\n", "improve", "tie")
	_, ds := promptPlan(t, t.TempDir(), "s.hcl", judgeWith(t, conflict))
	assertDiag(t, conflict, ds, CodeDuplicate, "s.hcl:110:", `verdict "Lose" is given twice`)
	subset := threeTags("    verdict \"lose\" {\n      groups = { improvement = \"lose\" }\n    }\n    verdict \"tie\" {\n      groups = { improvement = \"lose\", tier = \"NA\" }\n    }\n", "improve")
	_, ds = promptPlan(t, t.TempDir(), "s.hcl", judgeWith(t, subset))
	assertDiag(t, subset, ds, CodeConflict, "s.hcl:108:16", `every answer that reads verdict "tie" also reads "lose"`)
}

// assertDiag wants a diagnostic of code in ds at a range holding at, its
// summary holding msg.
func assertDiag(t *testing.T, what string, ds diag.Diagnostics, code, at, msg string) {
	t.Helper()
	for _, d := range ds {
		if d.Code == code && strings.Contains(d.Range.String(), at) && strings.Contains(d.Summary, msg) {
			return
		}
	}
	t.Errorf("%s:\nno %s at %s: ...%s in:\n%s", what, code, at, msg, ds.Format(0))
}
