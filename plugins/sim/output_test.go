package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Every answer's Output is exactly what its Payload decodes to, and holds
// no map of the request: the runtime takes Output in place of decoding.
func TestOutputIsThePayloadDecoded(t *testing.T) {
	w := testWorld()
	for _, k := range []string{plugins.RolePropose, plugins.RoleBuild, plugins.RoleSummarize} {
		w.Roles[RoleKey("llm", k, "m")] = &Role{Name: k, BuildFailures: 0.5}
	}
	l := NewLLM(w, "llm").LLM()
	child := plugins.Proposal{ID: "c", Text: "a <b> & c", Mechanism: "opt", Edits: map[string]string{"knob02": "3"}}
	calls := []struct {
		role string
		in   any
		out  func() any
	}{
		{plugins.RolePropose, payload.ProposeRequest{Task: "t", Env: "e", N: 3, Parent: &child}, func() any { return new(payload.ProposeResponse) }},
		{plugins.RolePropose, payload.ProposeRequest{Task: "t", Env: "e", Knobs: []plugins.Knob{}}, func() any { return new(payload.ProposeResponse) }},
		{plugins.RolePredict, payload.PredictRequest{Task: "t", Env: "e", Proposal: child}, func() any { return new(payload.PredictResponse) }},
		{plugins.RoleBuild, payload.ImplementRequest{Task: "t", Env: "e", Proposal: child}, func() any { return new(payload.ImplementResponse) }},
		{plugins.RoleBuild, payload.ImplementRequest{Task: "t", Env: "e", Proposal: plugins.Proposal{ID: "x"}}, func() any { return new(payload.ImplementResponse) }},
		{plugins.RoleSummarize, payload.SummarizeRequest{Task: "t", Proposal: child}, func() any { return new(payload.SummarizeResponse) }},
		{plugins.RoleCritic, payload.CritiqueRequest{Task: "t", Env: "e", Child: child, Labels: payload.Labels5}, func() any { return new(payload.CritiqueResponse) }},
	}
	for i, c := range calls {
		for seed := range int64(8) {
			resp, err := l.Complete(context.Background(), &plugins.CompleteRequest{Role: c.role, Model: "m", Seed: seed, Input: c.in})
			if err != nil {
				t.Fatalf("call %d (%s): %v", i, c.role, err)
			}
			dec := c.out()
			if err := payload.Decode(resp.Payload, dec); err != nil {
				t.Fatalf("call %d (%s): %v", i, c.role, err)
			}
			if resp.Output == nil || reflect.TypeOf(resp.Output) != reflect.TypeOf(dec).Elem() {
				t.Fatalf("call %d (%s): Output %T, want %T", i, c.role, resp.Output, dec)
			}
			if d := cmp.Diff(reflect.ValueOf(dec).Elem().Interface(), resp.Output); d != "" {
				t.Errorf("call %d (%s) seed %d: Output is not the payload decoded (-decoded +output):\n%s", i, c.role, seed, d)
			}
		}
	}
	// A built proposal's edits are its own: changing them leaves the
	// request's as they were.
	resp, err := l.Complete(context.Background(), &plugins.CompleteRequest{Role: plugins.RoleBuild, Model: "m", Input: payload.ImplementRequest{Task: "t", Env: "e", Proposal: child}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Output.(payload.ImplementResponse).Proposal.Edits["knob02"] = "7"
	if child.Edits["knob02"] != "3" {
		t.Errorf("the answer shares the request's edits")
	}
}
