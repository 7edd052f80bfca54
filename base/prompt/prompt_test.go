package prompt

import (
	"strings"
	"testing"
)

func TestCheckTemplate(t *testing.T) {
	cases := []struct {
		kind, text string
		want       string // "" for none
	}{
		{KindCritic, `Task {{.Task.Name}}: {{range .Labels}}{{.}} {{end}}{{.Child.Text}}`, ""},
		{KindPropose, `{{range $i, $r := .History}}{{$i}} {{$r.Proposal.Text}} {{$r.Gain}}{{end}}{{.N}}`, ""},
		{KindPropose, `{{with .Parent}}{{.Text}}{{else}}baseline{{end}}{{json .Knobs}}`, ""},
		{KindPropose, "ok\n  {{range .History}}{{.Gian}}{{end}}", "2:23: .Gian: a Record has no Gian"},
		{KindCritic, "{{.Knobs}}", "1:3: .Knobs: the role's variables has no Knobs"},
		{KindSummarize, "{{.Task.Desc}}", "1:8: .Task.Desc: a Task has no Desc"},
		{KindCritic, "line\n{{.Labels", "2:1: unclosed action"},
		{KindCritic, `{{env "HOME"}}`, `function "env" not defined`},
		{KindCritic, `x{{range 1000000000}}{{end}}`, `1:10: range over a number`},
		{KindPropose, `{{range .N}}{{end}}`, `range over a number`},
		{KindPropose, `{{$n := 1000000000000}}{{range $n}}{{end}}`, `range over a number`},
		{KindPropose, `{{range .History}}{{range $.History}}{{range $.Records}}{{range $.Inspirations}}{{end}}{{end}}{{end}}{{end}}`, `nested more than 3 deep`},
		{KindPropose, `{{range .History}}{{range $.History}}{{range $.Records}}{{.Gain}}{{end}}{{end}}{{end}}`, ""},
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

func TestRenderBounded(t *testing.T) {
	vars := &ProposeVars{Task: Task{Name: strings.Repeat("x", 1<<20)}}
	_, err := Render("p", Templates{System: "{{.Task.Name}}{{.Task.Name}}{{.Task.Name}}{{.Task.Name}}{{.Task.Name}}", User: "x"}, vars)
	if err == nil || !strings.Contains(err.Error(), "renders to over") {
		t.Errorf("got %v, want a size error", err)
	}
}

// TestDefaultTemplatesCheck: Assay's own templates pass its own check.
func TestDefaultTemplatesCheck(t *testing.T) {
	for _, k := range []string{KindPropose, KindPredict, KindCritic, KindSummarize, KindBuild, KindImplement} {
		d, ok := Defaults(k)
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

// FuzzCheckTemplate: a template from a spec is checked and rendered
// without a panic, whatever its text.
func FuzzCheckTemplate(f *testing.F) {
	f.Add("{{range $i, $r := .History}}{{$i}} {{$r.Proposal.Text}}{{end}}")
	f.Add("{{with .Parent}}{{.Edits}}{{else}}x{{end}}{{json .Knobs}}{{join .Knobs}}")
	f.Add("{{define \"a\"}}{{.X}}{{end}}{{template \"a\" .Task}}")
	f.Add("{{.Task.Name")
	f.Fuzz(func(t *testing.T, text string) {
		if CheckTemplate(KindPropose, text) != nil {
			return
		}
		_, _ = Render("p", Templates{System: text}, &ProposeVars{N: 1, History: []Record{{Gain: 1}}})
	})
}

// TestDefaultCriticReadsCriteria: the default critic system message
// carries the criteria a task or role gives, and is unchanged without.
func TestDefaultCriticReadsCriteria(t *testing.T) {
	d, _ := Defaults(KindCritic)
	render := func(criteria string) string {
		msgs, err := Render("critic", d, &CritiqueVars{Labels: []string{"Improve", "Same", "Lose"}, Criteria: criteria})
		if err != nil {
			t.Fatal(err)
		}
		return msgs[0].Content
	}
	with, without := render("Prefer changes to the optimiser."), render("")
	if !strings.Contains(with, "Prefer changes to the optimiser.") {
		t.Errorf("criteria missing from the system message:\n%s", with)
	}
	if strings.Contains(without, "criteria") || !strings.HasSuffix(without, "Reply with the JSON object only.") {
		t.Errorf("without criteria the message changed:\n%q", without)
	}
}
