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
