package openai

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// TestSendsGivenMessages: messages the runtime rendered from a role's own
// templates are sent exactly, in place of the default chat.
func TestSendsGivenMessages(t *testing.T) {
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return 200, nil, completion(`{"predicted_gain": 0.1, "confidence": 0.5}`, 10, 5)
	})
	l, _ := testLLM()
	req := predictReq(srv.URL, nil)
	req.Messages = []plugins.Message{{Role: "system", Content: "Own system text."}, {Role: "user", Content: "Own user text for t1."}}
	if _, err := l.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	want := []chatMessage{{Role: "system", Content: "Own system text."}, {Role: "user", Content: "Own user text for t1."}}
	if d := cmp.Diff(want, srv.requests[0].Messages); d != "" {
		t.Errorf("messages sent (-want +got):\n%s", d)
	}
}

// TestCriticVerdictPattern: a critic whose payload names a verdict pattern
// is read from free text, without JSON mode; an answer the pattern cannot
// read is ErrUnparsed, billed.
func TestCriticVerdictPattern(t *testing.T) {
	answer := "Soundness: the schedule is standard.\nFinal verdict: Improve"
	srv := newFakeServer(t, func(n int, _ chatRequest) (int, map[string]string, string) {
		if n == 1 {
			return 200, nil, completion("No verdict here.", 7, 3)
		}
		return 200, nil, completion(answer, 7, 3)
	})
	l, _ := testLLM()
	req := predictReq(srv.URL, nil)
	req.Role = plugins.RoleCritic
	req.Payload, _ = payload.Encode(payload.CritiqueRequest{Task: "t", Labels: payload.Labels3, Verdict: `Final verdict:\s*(\w+)`})
	resp, err := l.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var got payload.CritiqueResponse
	if err := payload.Decode(resp.Payload, &got); err != nil || got.Label != payload.LabelImprove {
		t.Errorf("payload %s (%v), want label improve", resp.Payload, err)
	}
	if srv.requests[0].ResponseFormat != nil {
		t.Errorf("a free-text critic was asked for a JSON object: %+v", srv.requests[0].ResponseFormat)
	}
	_, err = l.Complete(context.Background(), req)
	if !errors.Is(err, plugins.ErrUnparsed) {
		t.Fatalf("err = %v, want ErrUnparsed", err)
	}
	if u, ok := plugins.UsageOf(err); !ok || u.In != 7 || u.Out != 3 {
		t.Errorf("usage of the unread answer = %+v, %v; want it billed", u, ok)
	}
}

// TestJSONModeOnlyForJSONAnswers: json_mode asks for a JSON object only
// where the answer is read as one: not from a proposer answering in free
// text, nor from a source-mode builder, whose change may be a diff or
// SEARCH/REPLACE blocks.
func TestJSONModeOnlyForJSONAnswers(t *testing.T) {
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return 200, nil, completion("1. Raise lr.\n\ntrain.py\n<<<<<<< SEARCH\nlr = 1\n=======\nlr = 2\n>>>>>>> REPLACE\n", 1, 1)
	})
	l, _ := testLLM()
	src := &payload.SourceContext{Commit: "c", Editable: []string{"train.py"}}
	free, _ := payload.Encode(payload.ProposeRequest{Task: "t", N: 1, Format: payload.IdeasList})
	build, _ := payload.Encode(payload.ImplementRequest{Task: "t", Source: src})
	knobs, _ := payload.Encode(payload.ImplementRequest{Task: "t"})
	for i, c := range []struct {
		role string
		in   []byte
		json bool
	}{{plugins.RolePropose, free, false}, {plugins.RoleImplement, build, false}, {plugins.RoleImplement, knobs, true}} {
		req := predictReq(srv.URL, nil)
		req.Role, req.Payload = c.role, c.in
		l.Complete(context.Background(), req) // the knob-mode answer is unparsed: only the request counts
		if got := srv.requests[i].ResponseFormat != nil; got != c.json {
			t.Errorf("%s %s: json_object asked %v, want %v", c.role, c.in, got, c.json)
		}
	}
}
