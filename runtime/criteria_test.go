package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// TestTaskCriteriaRender: a critic judging a task with its own criteria
// (criteria_dir) is sent them as .Criteria; another task gets the role's
// criteria.
func TestTaskCriteriaRender(t *testing.T) {
	role := &plan.Role{Name: "critic", Kind: plugins.RoleCritic, Prompt: &plan.Prompt{System: "Judge.", User: "Criteria: {{.Criteria}}",
		Criteria: "general soundness", TaskCriteria: map[string]string{"train-01": "lower val_bpb at 300 steps"}}}
	for task, want := range map[string]string{"train-01": "Criteria: lower val_bpb at 300 steps", "train-02": "Criteria: general soundness"} {
		in := payload.CritiqueRequest{Env: "tiny", Task: task, Labels: "3way"}
		body, err := payload.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := RenderChat(role, in, body)
		if err != nil {
			t.Fatal(err)
		}
		if got := msgs[len(msgs)-1].Content; !strings.Contains(got, want) {
			t.Errorf("task %s: sent %q, want %q", task, got, want)
		}
	}
}
