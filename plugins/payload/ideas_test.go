package payload

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"

	"github.com/google/go-cmp/cmp"
)

// A proposer's free text reads as ideas: one per answer, or one per item
// of its list.
func TestParseIdeas(t *testing.T) {
	cases := []struct {
		name, format, text string
		want               []plugins.Proposal
	}{
		{"one idea, its mechanism tagged", IdeasText, "[optimizer] Raise the learning rate to 0.1: the baseline trains at a timid 0.03.\n",
			[]plugins.Proposal{{ID: "idea", Mechanism: "optimizer", Text: "Raise the learning rate to 0.1: the baseline trains at a timid 0.03."}}},
		{"one idea in a fence", IdeasText, "```\nWiden the hidden layer to 128.\n```", []plugins.Proposal{{ID: "idea", Text: "Widen the hidden layer to 128."}}},
		{"a numbered list in prose, items over lines, a nested list", IdeasList,
			"Here are three ideas:\n\n1. [optimizer] Raise the learning rate to 0.1.\n   The baseline is timid.\n2) Widen the model:\n   - 128 units\n   - same depth\n3. **Train longer**: 90 epochs.\n\nEach should help.\n",
			[]plugins.Proposal{{ID: "1", Mechanism: "optimizer", Text: "Raise the learning rate to 0.1.\nThe baseline is timid."}, {ID: "2", Text: "Widen the model:\n- 128 units\n- same depth"}, {ID: "3", Text: "**Train longer**: 90 epochs."}}},
		{"bold numbers", IdeasList, "**1. Warm up** the rate.\n**2. Clip** gradients.\n",
			[]plugins.Proposal{{ID: "1", Text: "Warm up the rate."}, {ID: "2", Text: "Clip gradients."}}},
		{"a bulleted list", IdeasList, "- [schedule] Cosine decay.\n- [regularisation] Weight decay 1e-4.\n",
			[]plugins.Proposal{{ID: "1", Mechanism: "schedule", Text: "Cosine decay."}, {ID: "2", Mechanism: "regularisation", Text: "Weight decay 1e-4."}}},
		{"prose between items", IdeasList, "1. First.\n\nA remark.\n\n2. Second.\n",
			[]plugins.Proposal{{ID: "1", Text: "First."}, {ID: "2", Text: "Second."}}},
	}
	for _, c := range cases {
		got, err := ParseIdeas(c.format, c.text)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, got.Proposals); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
	for _, c := range []struct{ format, text, want string }{
		{IdeasText, " \n", "empty"},
		{IdeasList, "Just raise the learning rate.", "no numbered or bulleted list"},
		{"json", "x", "no idea format"},
	} {
		if _, err := ParseIdeas(c.format, c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.format, c.text, err, c.want)
		}
	}
}

// FuzzParseIdeas: any text reads as ideas with text, or an error; never
// more than MaxIdeas.
func FuzzParseIdeas(f *testing.F) {
	f.Add(true, "1. a\n2. b")
	f.Add(false, "[x] y")
	f.Add(true, "**1.** \n- \n  * q\n\n3) r")
	f.Fuzz(func(t *testing.T, list bool, text string) {
		format := IdeasText
		if list {
			format = IdeasList
		}
		r, err := ParseIdeas(format, text)
		if err != nil {
			return
		}
		if len(r.Proposals) == 0 || len(r.Proposals) > MaxIdeas {
			t.Fatalf("%d ideas", len(r.Proposals))
		}
		for _, p := range r.Proposals {
			if strings.TrimSpace(p.Text) == "" || p.ID == "" {
				t.Fatalf("an idea without text or ID: %+v from %q", p, text)
			}
		}
	})
}
