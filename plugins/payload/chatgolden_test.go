package payload

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

var updateChat = flag.Bool("update", false, "rewrite testdata/chat.json")

// chatCases are one request of every role kind.
func chatCases() map[string]any {
	parent := &plugins.Proposal{ID: "p0", Text: "baseline", Mechanism: "optimizer", Edits: map[string]string{"lr": "1e-3"}}
	knobs := []plugins.Knob{{Name: "lr", Mechanism: "optimizer", Default: "1e-3", Values: []string{"1e-3", "3e-4"}}}
	rec := Record{Task: "t1", Proposal: plugins.Proposal{ID: "r1", Text: "lower lr", Edits: map[string]string{"lr": "3e-4"}}, Gain: 0.02}
	child := plugins.Proposal{ID: "c1", Text: "use 3e-4", Mechanism: "optimizer", Edits: map[string]string{"lr": "3e-4"}}
	return map[string]any{
		plugins.RolePropose:   &ProposeRequest{Task: "t1", Env: "e", State: "t1/0", Parent: parent, History: []Record{rec}, Knobs: knobs, N: 2, Inspirations: []Record{rec}},
		plugins.RolePredict:   &PredictRequest{Task: "t1", Records: []Record{rec}, Proposal: child},
		plugins.RoleCritic:    &CritiqueRequest{Task: "t1", Parent: *parent, Child: child, Summary: "s", Labels: Labels5},
		plugins.RoleSummarize: &SummarizeRequest{Task: "t1", Proposal: child},
		plugins.RoleBuild:     &ImplementRequest{Task: "t1", Proposal: child, Knobs: knobs},
		plugins.RoleImplement: &ImplementRequest{Task: "t1", Proposal: child, Knobs: knobs, Repair: 1, Failure: "boom"},
	}
}

// TestChatGolden pins the chat every role kind is sent by default, as
// Assay sent it before prompts were templates: a spec without a prompt
// block must be sent exactly this.
func TestChatGolden(t *testing.T) {
	got := map[string][]Message{}
	for role, in := range chatCases() {
		body, err := Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := Chat(role, nil, body)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		got[role] = msgs
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "chat.json")
	if *updateChat {
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(b)+"\n" {
		t.Errorf("the default chat changed; got:\n%s", b)
	}
}
