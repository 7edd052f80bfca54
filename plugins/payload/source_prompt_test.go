package payload

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// In source mode the builder's default prompt asks for a unified diff of
// the listed paths, with the files it may change in the input; in knob
// mode it asks for knob edits, as before.
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
