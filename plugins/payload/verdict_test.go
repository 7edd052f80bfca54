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
