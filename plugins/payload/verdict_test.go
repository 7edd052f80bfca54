package payload

import (
	"strings"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	const rubric = `Final verdict:\s*(\w+)`
	cases := []struct {
		pattern, space, text, want, err string
	}{
		{rubric, Labels3, "Soundness: fine.\nNovelty: low.\nFinal verdict: Improve", LabelImprove, ""},
		{rubric, Labels5, "... Final verdict:   mediumwin.", LabelMediumWin, ""},
		{rubric, Labels3, "Final verdict: Lose\nFinal verdict: Improve", LabelLose, ""},
		{rubric, Labels3, "I cannot decide.", "", "no verdict matches"},
		{rubric, Labels3, "Final verdict: BigWin", "", `"BigWin" is not one of improve, tie, lose`},
		{`verdict \w+`, Labels3, "verdict tie", "", "has no group"},
		{`(a`, Labels3, "a", "", "does not compile"},
		{strings.Repeat("a", MaxVerdictPattern+1), Labels3, "a", "", "over 512 bytes"},
	}
	for _, c := range cases {
		got, err := ParseVerdict(c.pattern, c.space, c.text)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q on %q: got %q, %v; want error %q", c.pattern, c.text, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q on %q: got %q, %v; want %q", c.pattern, c.text, got, err, c.want)
		}
	}
}

func FuzzParseVerdict(f *testing.F) {
	f.Add(`Final verdict:\s*(\w+)`, "Final verdict: Improve")
	f.Add(`(?i)verdict[^A-Za-z]*([a-z]+)`, "VERDICT -- tie")
	f.Add(`(`, "")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		label, err := ParseVerdict(pattern, Labels5, text)
		if err == nil && LabelRank(Labels5, label) < 0 {
			t.Fatalf("label %q is not in the set", label)
		}
	})
}

// A verdict in two tags is read by the pattern's named groups: the one
// rule whose groups all read their values is the label; none or several
// leave the answer unread.
func TestParseVerdictGroups(t *testing.T) {
	const twoTags = `(?s)\[IMPROVEMENT\]\s*(?P<improvement>\w+).*?\[WINTIER\]\s*(?P<tier>\w+)`
	five := []VerdictRule{
		{Label: "BigWin", Groups: map[string]string{"improvement": "improve", "tier": "big"}},
		{Label: "MediumWin", Groups: map[string]string{"improvement": "improve", "tier": "medium"}},
		{Label: "SmallWin", Groups: map[string]string{"improvement": "improve", "tier": "small"}},
		{Label: "tie", Groups: map[string]string{"improvement": "tie"}},
		{Label: "Lose", Groups: map[string]string{"improvement": "lose"}},
	}
	answer := func(imp, tier string) string {
		return "Soundness: the child keeps the schedule.\n# Verdict\n[IMPROVEMENT] " + imp + " --- it should help.\n[WINTIER] " + tier + " --- a clear gain."
	}
	cases := []struct {
		rules      []VerdictRule
		space      string
		text, want string
		err        string
	}{
		{five, Labels5, answer("improve", "big"), LabelBigWin, ""},
		{five, Labels5, answer("Improve", "Medium"), LabelMediumWin, ""},
		{five, Labels5, answer("improve", "small"), LabelSmallWin, ""},
		{five, Labels5, answer("tie", "NA"), Label5Tie, ""}, // the rule's "tie" spelled as the space spells it
		{five, Labels5, answer("lose", "NA"), Label5Lose, ""},
		{five, Labels5, answer("improve", "NA"), "", `no verdict reads the groups improvement="improve" tier="NA"`},
		{five, Labels5, "[IMPROVEMENT] improve, no tier given", "", "no verdict matches"},
		{append(five, VerdictRule{Label: "BigWin", Groups: map[string]string{"tier": "big"}}), Labels5, answer("improve", "big"), "", "read as BigWin and BigWin at once"},
		{[]VerdictRule{{Label: "improve", Groups: map[string]string{"improvement": "improve"}}, {Label: "lose", Groups: map[string]string{"improvement": "lose"}}}, Labels3, answer("improve", "big"), LabelImprove, ""},
		{[]VerdictRule{{Label: "BigWin", Groups: map[string]string{"improvement": "improve"}}}, Labels3, answer("improve", "big"), "", `"BigWin" is not one of improve, tie, lose`},
		{[]VerdictRule{{Label: "improve", Groups: map[string]string{"nope": "improve"}}}, Labels3, answer("improve", "big"), "", "no verdict reads"},
	}
	for i, c := range cases {
		got, err := ParseVerdictGroups(twoTags, c.rules, c.space, c.text)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d: got %q, %v; want error %q", i, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("case %d: got %q, %v; want %q", i, got, err, c.want)
		}
	}
	// One group alone cannot read the two tags: the first group is
	// "improve" whatever the tier, not a 5-way label.
	if got, err := ParseVerdict(twoTags, Labels5, answer("improve", "big")); err == nil {
		t.Errorf("the first group alone read %q", got)
	}
}
