package openai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// A call's usage counts every attempt a provider may bill, bounded below
// by zero and above so that no sum overflows, whatever the server reports.
func TestUsageOfHostileServers(t *testing.T) {
	const answer = `{"predicted_gain": 0.2, "confidence": 1}`
	prompt := func(req *plugins.CompleteRequest) int {
		msgs, err := render(req)
		if err != nil {
			t.Fatal(err)
		}
		return promptTokens(msgs)
	}
	tests := []struct {
		name string
		// body answers the n-th request (status, body); "" blocks until the
		// attempt times out.
		body    func(n int) (int, string)
		want    func(p int) plugins.Usage
		wantErr string
	}{
		{"negative usage counts at its worst case", func(int) (int, string) { return 200, completion(answer, -5000, -700) },
			func(p int) plugins.Usage { return plugins.Usage{In: p, Out: 64} }, ""},
		{"1e15 tokens do not overflow", func(int) (int, string) { return 200, completion(answer, 1e15, 1e15) },
			func(int) plugins.Usage { return plugins.Usage{In: math.MaxInt32, Out: math.MaxInt32} }, ""},
		{"an exponent is read too", func(int) (int, string) {
			return 200, strings.Replace(completion(answer, 7, 1), `"prompt_tokens":7`, `"prompt_tokens":1e15`, 1)
		}, func(int) plugins.Usage { return plugins.Usage{In: math.MaxInt32, Out: 1} }, ""},
		{"5xx attempts are not billed, the answer is", func(n int) (int, string) {
			if n < 2 {
				return 503, "busy"
			}
			return 200, completion(answer, 300, 20)
		}, func(int) plugins.Usage { return plugins.Usage{In: 300, Out: 20} }, ""},
		{"a timed-out attempt is billed at its worst case", func(n int) (int, string) {
			if n == 0 {
				return 0, ""
			}
			return 200, completion(answer, 300, 20)
		}, func(p int) plugins.Usage { return plugins.Usage{In: p + 300, Out: 64 + 20} }, ""},
		{"an answer of no use is billed", func(int) (int, string) { return 200, completion(`not json`, 400, 30) },
			func(int) plugins.Usage { return plugins.Usage{In: 400, Out: 30} }, "not a JSON object"},
		{"an answer without usage is counted at its bound", func(int) (int, string) {
			return 200, `{"choices":[{"message":{"content":"` + strings.ReplaceAll(answer, `"`, `\"`) + `"}}]}`
		}, func(p int) plugins.Usage { return plugins.Usage{In: p, Out: len(answer)} }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				status, body := tt.body(int(n.Add(1) - 1))
				if status == 0 {
					select {
					case <-r.Context().Done():
					case <-release:
					}
					return
				}
				w.WriteHeader(status)
				fmt.Fprint(w, body)
			}))
			defer srv.Close()
			defer close(release)
			l, _ := testLLM()
			req := predictReq(srv.URL, map[string]any{"timeout_seconds": 0.2})
			req.MaxTokens = 64
			resp, err := l.Complete(context.Background(), req)
			var got plugins.Usage
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				var ok bool
				if got, ok = plugins.UsageOf(err); !ok {
					t.Fatalf("the error carries no usage: %v", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got = resp.Usage
			}
			if want := tt.want(prompt(req)); got != want {
				t.Errorf("usage %+v, want %+v", got, want)
			}
		})
	}
}

// A prompt over the role's limit, by the documented count, is refused
// before anything is sent, and the error says it was refused.
func TestPromptOverLimitIsRefused(t *testing.T) {
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return 200, nil, completion(`{"predicted_gain": 0.2, "confidence": 1}`, 1, 1)
	})
	l, _ := testLLM()
	req := predictReq(srv.URL, nil)
	msgs, _ := render(req)
	p := promptTokens(msgs)
	req.MaxPromptTokens = p
	if _, err := l.Complete(context.Background(), req); err != nil {
		t.Fatalf("a prompt of exactly the limit: %v", err)
	}
	req.MaxPromptTokens = p - 1
	_, err := l.Complete(context.Background(), req)
	if err == nil || !errors.Is(err, plugins.ErrConfig) || !strings.Contains(err.Error(), "refused, not sent and not truncated") ||
		!strings.Contains(err.Error(), fmt.Sprintf("counts %d tokens", p)) {
		t.Fatalf("err = %v, want a refusal naming the count %d", err, p)
	}
	if u, ok := plugins.UsageOf(err); !ok || u != (plugins.Usage{}) {
		t.Errorf("a refused prompt is billed %+v (%v)", u, ok)
	}
	if n := srv.count(); n != 1 {
		t.Errorf("the server got %d requests, want 1 (the refused prompt is never sent)", n)
	}
	// The count is an upper bound: one token per byte at least.
	total := 0
	for _, m := range msgs {
		total += len(m.Content)
	}
	if p < total {
		t.Errorf("prompt count %d below the prompt's %d bytes", p, total)
	}
}
