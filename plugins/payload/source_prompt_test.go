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
