package payload

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

func TestCheckTemplate(t *testing.T) {
	cases := []struct {
		kind, text string
		want       string // "" for none
	}{
		{plugins.RoleCritic, `Task {{.Task.Name}}: {{range .Labels}}{{.}} {{end}}{{.Child.Text}}`, ""},
		{plugins.RolePropose, `{{range $i, $r := .History}}{{$i}} {{$r.Proposal.Text}} {{$r.Gain}}{{end}}{{.N}}`, ""},
		{plugins.RolePropose, `{{with .Parent}}{{.Text}}{{else}}baseline{{end}}{{json .Knobs}}`, ""},
		{plugins.RolePropose, "ok\n  {{range .History}}{{.Gian}}{{end}}", "2:23: .Gian: a Record has no Gian"},
		{plugins.RoleCritic, "{{.Knobs}}", "1:3: .Knobs: the role's variables has no Knobs"},
		{plugins.RoleSummarize, "{{.Task.Desc}}", "1:8: .Task.Desc: a Task has no Desc"},
		{plugins.RoleCritic, "line\n{{.Labels", "2:1: unclosed action"},
		{plugins.RoleCritic, `{{env "HOME"}}`, `function "env" not defined`},
	}
	for _, c := range cases {
		err := CheckTemplate(c.kind, c.text)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: %v", c.kind, c.text, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: got %v, want %q", c.kind, c.text, err, c.want)
		}
	}
}

func TestRenderOwnTemplate(t *testing.T) {
	in := chatCases()[plugins.RoleCritic].(*CritiqueRequest)
	body, _ := Encode(in)
	vars, err := NewVars(plugins.RoleCritic, in, body)
	if err != nil {
		t.Fatal(err)
	}
	tm := Templates{System: "You are {{.Role}}. Labels: {{join .Labels \"|\"}}.", User: "Parent: {{.Parent.Text}}\nChild: {{.Child.Text}}\nSummary: {{.Summary}}"}
	msgs, err := Render("judge", tm, vars)
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{{"system", "You are judge. Labels: BigWin|MediumWin|SmallWin|Tie|Lose."}, {"user", "Parent: baseline\nChild: use 3e-4\nSummary: s"}}
	if len(msgs) != 2 || msgs[0] != want[0] || msgs[1] != want[1] {
		t.Errorf("got %q, want %q", msgs, want)
	}
}

func TestRenderBounded(t *testing.T) {
	in := &ProposeRequest{Task: strings.Repeat("x", 1<<20), N: 1}
	body, _ := Encode(in)
	vars, err := NewVars(plugins.RolePropose, in, body)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render("p", Templates{System: "{{.Task.Name}}{{.Task.Name}}{{.Task.Name}}{{.Task.Name}}{{.Task.Name}}", User: "x"}, vars)
	if err == nil || !strings.Contains(err.Error(), "renders to over") {
		t.Errorf("got %v, want a size error", err)
	}
}

// TestDefaultTemplatesCheck: Assay's own templates pass its own check.
func TestDefaultTemplatesCheck(t *testing.T) {
	for _, k := range []string{plugins.RolePropose, plugins.RolePredict, plugins.RoleCritic, plugins.RoleSummarize, plugins.RoleBuild, plugins.RoleImplement} {
		d, ok := DefaultTemplates(k)
		if !ok {
			t.Fatalf("no default for %s", k)
		}
		for _, text := range []string{d.System, d.User} {
			if err := CheckTemplate(k, text); err != nil {
				t.Errorf("%s: %v", k, err)
			}
		}
	}
}
