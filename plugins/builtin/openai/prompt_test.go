package openai

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/plugins"
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
