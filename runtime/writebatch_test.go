package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// encoderBatch is the batch file as encoding/json writes []batchLine, the
// format writeBatch must keep byte for byte.
func encoderBatch(t *testing.T, step int, samples []plugins.Sample) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, s := range samples {
		state := json.RawMessage(s.State)
		if !json.Valid(state) {
			state, _ = json.Marshal(s.State)
		}
		prompt, err := payload.Chat(plugins.RolePropose, nil, state)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(batchLine{Step: step, Group: s.Group, Prompt: prompt, Completion: s.Completion, State: state,
			Proposal: s.Proposal, Reward: s.Reward, Advantage: s.Advantage,
			Policy: batchPolicy{Adapter: s.Policy.Adapter, AdapterDir: s.Policy.Path, Step: s.Policy.Step}}); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestWriteBatchIsTheEncodersFormat: the batch file writeBatch writes,
// with states shared within groups, is what encoding/json writes for the
// same lines, HTML escapes, compaction and non-JSON states included.
func TestWriteBatchIsTheEncodersFormat(t *testing.T) {
	shared := `{"task": "t<1>", "history": [ {"gain": 0.5, "text": "a & b \u2028"} ]}`
	pol := plugins.SamplePolicy{Adapter: "pol-step-2", Path: "/w/a <b>", Step: 2}
	samples := []plugins.Sample{
		{State: shared, Group: "g/s0", Reward: 1, Advantage: 0.70710678118654752, Proposal: plugins.Proposal{ID: "p1", Text: "set <x>=1 & y", Edits: map[string]string{"k2": "1", "k1": "0"}},
			Completion: "  {\"proposals\": [{\"ID\": \"p1\"}]}\n", Policy: pol},
		{State: shared, Group: "g/s0", Reward: -0.25, Advantage: -1e-21, Proposal: plugins.Proposal{ID: "p2", Mechanism: "m"}, Completion: "p2 & <b> \u2028"},
		{State: "not json {", Group: "g/\"s1\"", Reward: 3e21, Proposal: plugins.Proposal{ID: "p3"}, Completion: "é", Policy: pol},
		{State: `{"task":"t2"}`, Group: "g/s2", Proposal: plugins.Proposal{ID: "p4", Text: "é\n\t"}, Completion: "x"},
		{State: shared, Group: "g/s0", Reward: 0.1, Advantage: 0.2, Completion: "not a proposal"},
	}
	path := filepath.Join(t.TempDir(), "batch.jsonl")
	if err := writeBatch(path, &plan.Role{Name: "proposer", Kind: plugins.RolePropose}, 7, samples); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(encoderBatch(t, 7, samples), string(got)); d != "" {
		t.Errorf("batch file (-encoding/json +writeBatch):\n%s", d)
	}
	// A sample without a completion has nothing to reinforce: refused.
	if err := writeBatch(path, &plan.Role{Name: "proposer", Kind: plugins.RolePropose}, 7, []plugins.Sample{{State: shared, Group: "g/s9"}}); err == nil || !strings.Contains(err.Error(), "g/s9") {
		t.Errorf("a sample without a completion: %v", err)
	}
}

// TestWriteBatchOwnPrompt: a batch's prompt is the proposer's own
// template rendered over the state, as its calls were sent.
func TestWriteBatchOwnPrompt(t *testing.T) {
	ro := &plan.Role{Name: "pol", Kind: plugins.RolePropose, Prompt: &plan.Prompt{System: "You are {{.Role}}.", User: "Task {{.Task.Name}}, {{.N}} ideas."}}
	path := filepath.Join(t.TempDir(), "batch.jsonl")
	if err := writeBatch(path, ro, 1, []plugins.Sample{{State: `{"task":"t9","state":"s","knobs":null,"n":3}`, Group: "g", Completion: "{}"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var line batchLine
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatal(err)
	}
	want := []payload.Message{{Role: "system", Content: "You are pol."}, {Role: "user", Content: "Task t9, 3 ideas."}}
	if d := cmp.Diff(want, line.Prompt); d != "" {
		t.Errorf("batch prompt (-want +got):\n%s", d)
	}
}
