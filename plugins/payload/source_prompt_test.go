package payload

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// In source mode the builder's default prompt asks for SEARCH/REPLACE
// blocks (or a unified diff) of the listed paths, with the files it may
// change in the input; in knob mode it asks for knob edits, as before.
func TestBuilderPromptBySourceMode(t *testing.T) {
	req := ImplementRequest{Task: "t", Proposal: plugins.Proposal{ID: "p", Text: "halve the rate"},
		Source: &SourceContext{Commit: "abc123", Editable: []string{"train.go"}, Files: []SourceFile{{Path: "train.go", Content: "const rate = 0.5\n"}}}}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := Chat(plugins.RoleBuild, nil, body)
	if err != nil {
		t.Fatal(err)
	}
	sys, user := msgs[0].Content, msgs[len(msgs)-1].Content
	if !strings.Contains(sys, "unified diff") || strings.Contains(sys, "knob") {
		t.Errorf("source-mode system prompt:\n%s", sys)
	}
	if !strings.Contains(user, "const rate = 0.5") || !strings.Contains(user, "train.go") {
		t.Errorf("the builder is not shown its editable file:\n%s", user)
	}
	req.Source = nil
	body, _ = json.Marshal(req)
	if msgs, err = Chat(plugins.RoleBuild, nil, body); err != nil {
		t.Fatal(err)
	}
	if sys := msgs[0].Content; !strings.Contains(sys, "knobs") || strings.Contains(sys, "unified diff") {
		t.Errorf("knob-mode system prompt:\n%s", sys)
	}
}

// In source mode the proposer's default prompt names the files it may
// change (its .Source) and the input holds their contents; it asks for no
// knob edits. In knob mode it asks for knob edits, as before.
func TestProposerPromptBySourceMode(t *testing.T) {
	req := ProposeRequest{Task: "t", State: "t", N: 1, Knobs: []plugins.Knob{{Name: "rate", Values: []string{"0.5", "1"}}},
		Source: &SourceContext{Commit: "abc123", Editable: []string{"*.go"}, Files: []SourceFile{{Path: "train.go", Content: "const rate = 0.5\n"}, {Path: "model.go", Content: "type Net struct{}\n"}}}}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := Chat(plugins.RolePropose, nil, body)
	if err != nil {
		t.Fatal(err)
	}
	sys, user := msgs[0].Content, msgs[len(msgs)-1].Content
	if !strings.Contains(sys, "You may change these files of the program: train.go, model.go;") || strings.Contains(sys, "Edits") || strings.HasSuffix(sys, "\n") {
		t.Errorf("source-mode system prompt:\n%q", sys)
	}
	if !strings.Contains(user, `const rate = 0.5\n`) || !strings.Contains(user, `"path": "model.go"`) {
		t.Errorf("the proposer is not shown its editable files:\n%s", user)
	}
	req.Source = nil
	body, _ = json.Marshal(req)
	if msgs, err = Chat(plugins.RolePropose, nil, body); err != nil {
		t.Fatal(err)
	}
	if sys := msgs[0].Content; !strings.Contains(sys, `"Edits": {knob name: allowed value}`) || strings.Contains(sys, "files") {
		t.Errorf("knob-mode system prompt:\n%s", sys)
	}
}

// Every default prompt asks for the form its answer is read in: a
// critic read by a pattern for free text that the pattern matches, a
// free-text proposer for one idea or a numbered list, a source-mode
// builder for SEARCH/REPLACE blocks (the example it shows reads as one),
// and none of them for a JSON object. The request's own Input says
// nothing of how the answer is read.
func TestDefaultPromptsMatchAnswerFormats(t *testing.T) {
	src := &SourceContext{Commit: "abc123", Editable: []string{"train.go"}, Files: []SourceFile{{Path: "train.go", Content: "const rate = 0.5\n"}}}
	cases := []struct {
		role     string
		in       any
		want     []string
		notInput string
	}{
		{plugins.RoleCritic, CritiqueRequest{Task: "t", Labels: Labels3, Verdict: `Final verdict:\s*(\w+)`},
			[]string{"Answer in free text, not JSON", `"improve", "tie", "lose"`, "`Final verdict:\\s*(\\w+)` matches it"}, "verdict"},
		{plugins.RolePropose, ProposeRequest{Task: "t", N: 1, Format: IdeasText, Source: src}, []string{"plain text, not JSON, with one idea", "[optimizer]"}, `"format"`},
		{plugins.RolePropose, ProposeRequest{Task: "t", N: 3, Format: IdeasList, Source: src}, []string{"numbered list of exactly 3 different ideas"}, `"format"`},
		{plugins.RolePropose, ProposeRequest{Task: "t", N: 3, Format: IdeasList}, []string{"numbered list of exactly 3 different ideas", "knobs"}, `"format"`},
		{plugins.RoleBuild, ImplementRequest{Task: "t", Source: src}, []string{"<<<<<<< SEARCH", "INFEASIBLE:", "unified diff"}, ""},
	}
	for _, c := range cases {
		body, _ := json.Marshal(c.in)
		msgs, err := Chat(c.role, nil, body)
		if err != nil {
			t.Fatal(err)
		}
		sys, user := msgs[0].Content, msgs[len(msgs)-1].Content
		for _, w := range c.want {
			if !strings.Contains(sys, w) {
				t.Errorf("%s %T: the system prompt lacks %q:\n%s", c.role, c.in, w, sys)
			}
		}
		if strings.Contains(sys, "JSON object") {
			t.Errorf("%s %T: the system prompt asks for a JSON object:\n%s", c.role, c.in, sys)
		}
		if c.notInput != "" && strings.Contains(user, c.notInput) {
			t.Errorf("%s %T: the input says how the answer is read:\n%s", c.role, c.in, user)
		}
		if c.role == plugins.RoleBuild {
			i, j := strings.Index(sys, "path/of/the/file"), strings.Index(sys, ">>>>>>> REPLACE")
			r, err := ParseImplement(sys[i:j+len(">>>>>>> REPLACE")], src)
			if err != nil || len(r.Edits) != 1 || r.Edits[0].Path != "path/of/the/file" {
				t.Errorf("the prompt's own example reads as %+v, %v", r, err)
			}
		}
	}
}
