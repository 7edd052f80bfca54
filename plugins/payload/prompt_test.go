package payload

import (
	"testing"

	"github.com/assay-lang/assay/base/prompt"
	"github.com/assay-lang/assay/plugins"
)

func TestRenderOwnTemplate(t *testing.T) {
	in := chatCases()[plugins.RoleCritic].(*CritiqueRequest)
	body, _ := Encode(in)
	vars, err := NewVars(plugins.RoleCritic, in, body)
	if err != nil {
		t.Fatal(err)
	}
	tm := prompt.Templates{System: "You are {{.Role}}. Labels: {{join .Labels \"|\"}}.", User: "Parent: {{.Parent.Text}}\nChild: {{.Child.Text}}\nSummary: {{.Summary}}"}
	msgs, err := prompt.Render("judge", tm, vars)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{{Role: "system", Content: "You are judge. Labels: BigWin|MediumWin|SmallWin|Tie|Lose."}, {Role: "user", Content: "Parent: baseline\nChild: use 3e-4\nSummary: s"}}
	if len(msgs) != 2 || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Errorf("got %q, want %q", msgs, want)
	}
}
