package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// fakeServer is a chat-completions endpoint whose answers a test scripts.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []chatRequest
	headers  []http.Header
	// answer returns status, extra headers and body for the n-th request.
	answer func(n int, req chatRequest) (int, map[string]string, string)
}

func newFakeServer(t *testing.T, answer func(n int, req chatRequest) (int, map[string]string, string)) *fakeServer {
	f := &fakeServer{answer: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, req)
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		status, hdr, body := f.answer(n, req)
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// completion is a chat-completions body whose answer is content.
func completion(content string, in, out int) string {
	b, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return string(b)
}

// testLLM returns an llm whose clients record their backoff sleeps instead
// of sleeping.
func testLLM() (*llm, *[]time.Duration) {
	var mu sync.Mutex
	sleeps := &[]time.Duration{}
	l := newLLM()
	l.newClient = func(cfg Config) *client {
		c := newClient(cfg)
		c.getenv = func(k string) string {
			if k == "TEST_KEY" {
				return "sk-test"
			}
			return ""
		}
		c.jitter = func() float64 { return 0.5 }
		c.sleep = func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			*sleeps = append(*sleeps, d)
			mu.Unlock()
			return ctx.Err()
		}
		return c
	}
	return l, sleeps
}

func predictReq(url string, extra map[string]any) *plugins.CompleteRequest {
	cfg := map[string]any{"base_url": url + "/v1", "api_key_env": "TEST_KEY", "backoff_seconds": 1.0}
	for k, v := range extra {
		cfg[k] = v
	}
	p, _ := payload.Encode(payload.PredictRequest{Task: "t1", Proposal: plugins.Proposal{ID: "p", Edits: map[string]string{"lr": "1e-3"}}})
	return &plugins.CompleteRequest{Role: plugins.RolePredict, Model: "gpt-test", Temperature: 0.7, Seed: 42, Payload: p, Config: cfg}
}

func TestCompleteRequestAndUsage(t *testing.T) {
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return 200, nil, completion(`{"predicted_gain": 0.031, "confidence": 0.8, "extra": 1}`, 321, 17)
	})
	l, _ := testLLM()
	resp, err := l.Complete(context.Background(), predictReq(srv.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(resp.Payload), `{"predicted_gain":0.031,"confidence":0.8}`; got != want {
		t.Errorf("Payload = %s, want %s", got, want)
	}
	if resp.Usage != (plugins.Usage{In: 321, Out: 17}) {
		t.Errorf("Usage = %+v, want the server's 321/17", resp.Usage)
	}
	var in payload.PredictResponse
	if err := payload.Decode(resp.Payload, &in); err != nil {
		t.Errorf("the payload does not pass the strict decoder: %v", err)
	}
	req := srv.requests[0]
	if req.Model != "gpt-test" || req.Temperature != 0.7 || req.Seed == nil || *req.Seed != 42 ||
		req.ResponseFormat == nil || req.ResponseFormat.Type != "json_object" {
		t.Errorf("request = %+v", req)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "predicted_gain") ||
		req.Messages[1].Role != "user" || !strings.Contains(req.Messages[1].Content, `"lr": "1e-3"`) {
		t.Errorf("messages = %+v", req.Messages)
	}
	if got := srv.headers[0].Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestRetries(t *testing.T) {
	ok := completion(`{"predicted_gain": 0.1, "confidence": 0.5}`, 10, 5)
	tests := []struct {
		name     string
		answers  []string // "status[:retry-after]" per attempt, then ok
		retries  float64
		wantErr  string
		attempts int
		sleeps   []time.Duration
	}{
		{name: "429 then ok", answers: []string{"429"}, attempts: 2, sleeps: []time.Duration{750 * time.Millisecond}},
		{name: "5xx backoff doubles", answers: []string{"500", "502", "503"}, attempts: 4,
			sleeps: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}},
		{name: "retry-after seconds", answers: []string{"429:7"}, attempts: 2, sleeps: []time.Duration{7 * time.Second}},
		{name: "gives up", answers: []string{"503", "503", "503"}, retries: 2, attempts: 3, wantErr: "gave up after 3 attempts: HTTP 503"},
		{name: "400 is final", answers: []string{"400"}, attempts: 1, wantErr: "HTTP 400: bad"},
		{name: "401 names the key", answers: []string{"401"}, attempts: 1, wantErr: "refused the API key in $TEST_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, func(n int, _ chatRequest) (int, map[string]string, string) {
				if n >= len(tt.answers) {
					return 200, nil, ok
				}
				code, after, _ := strings.Cut(tt.answers[n], ":")
				var status int
				fmt.Sscan(code, &status)
				hdr := map[string]string{}
				if after != "" {
					hdr["Retry-After"] = after
				}
				return status, hdr, "bad"
			})
			l, sleeps := testLLM()
			extra := map[string]any{}
			if tt.retries > 0 {
				extra["max_retries"] = tt.retries
			}
			_, err := l.Complete(context.Background(), predictReq(srv.URL, extra))
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
			if srv.count() != tt.attempts {
				t.Errorf("%d attempts, want %d", srv.count(), tt.attempts)
			}
			if tt.sleeps != nil && !cmp.Equal(*sleeps, tt.sleeps) {
				t.Errorf("sleeps = %v, want %v", *sleeps, tt.sleeps)
			}
		})
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		fmt.Fprint(w, completion(`{"predicted_gain": 0.2, "confidence": 1}`, 1, 1))
	}))
	defer srv.Close()
	l, sleeps := testLLM()
	resp, err := l.Complete(context.Background(), predictReq(srv.URL, map[string]any{"timeout_seconds": 0.1}))
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Payload) != `{"predicted_gain":0.2,"confidence":1}` || calls.Load() != 2 || len(*sleeps) != 1 {
		t.Errorf("payload %s after %d calls and %d sleeps", resp.Payload, calls.Load(), len(*sleeps))
	}
}

func TestCancellationStopsRetrying(t *testing.T) {
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) { return 503, nil, "busy" })
	l := newLLM() // real sleeps: the 1 s backoff is cut short by the cancel
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := l.Complete(ctx, predictReq(srv.URL, nil))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestRateLimit(t *testing.T) {
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return 200, nil, completion(`{"predicted_gain": 0, "confidence": 0}`, 1, 1)
	})
	l, _ := testLLM()
	req := predictReq(srv.URL, map[string]any{"requests_per_second": 50.0})
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 11; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := l.Complete(context.Background(), req); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// 11 requests at 50/s need at least 10 intervals of 20 ms.
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("11 requests at 50/s took %v, want at least 200ms", d)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		fmt.Fprint(w, completion(`{"predicted_gain": 0, "confidence": 0}`, 1, 1))
	}))
	defer srv.Close()
	l, _ := testLLM()
	req := predictReq(srv.URL, map[string]any{"max_concurrency": 3.0})
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := l.Complete(context.Background(), req); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak of %d requests in flight, want at most 3 (and more than 1)", p)
	}
}

func TestAnswers(t *testing.T) {
	knobs := []plugins.Knob{{Name: "lr", Values: []string{"1e-3"}}}
	propose, _ := payload.Encode(payload.ProposeRequest{Task: "t", State: "s", Knobs: knobs, N: 1})
	critic, _ := payload.Encode(payload.CritiqueRequest{Task: "t", Labels: payload.Labels3})
	summ, _ := payload.Encode(payload.SummarizeRequest{Task: "t"})
	impl, _ := payload.Encode(payload.ImplementRequest{Task: "t", Knobs: knobs})
	ideas, _ := payload.Encode(payload.ProposeRequest{Task: "t", State: "s", N: 1, Format: payload.IdeasList})
	src := &payload.SourceContext{Commit: "c", Editable: []string{"train.py"}, Files: []payload.SourceFile{{Path: "train.py", Content: "lr = 0.03\n"}}}
	implSrc, _ := payload.Encode(payload.ImplementRequest{Task: "t", Source: src})
	tests := []struct {
		role, answer string
		in           []byte
		want         string // payload, or error text after "error: "
	}{
		{plugins.RolePropose, `{"proposals":[{"ID":"a","Text":"raise lr","Mechanism":"optimizer","Edits":{"lr":"1e-3"}}]}`, propose,
			`{"proposals":[{"ID":"a","Text":"raise lr","Mechanism":"optimizer","Edits":{"lr":"1e-3"},"Patch":""}]}`},
		{plugins.RolePropose, "```json\n{\"proposals\":[{\"ID\":\"a\"}]}\n```", propose,
			`{"proposals":[{"ID":"a","Text":"","Mechanism":"","Edits":null,"Patch":""}]}`},
		{plugins.RolePropose, `Sure! Here it is: {"proposals":[{"ID":"a"}]} Hope that helps.`, propose,
			`{"proposals":[{"ID":"a","Text":"","Mechanism":"","Edits":null,"Patch":""}]}`},
		{plugins.RolePropose, `{"ideas":[]}`, propose, `error: the answer does not fit the proposer role: it has no "proposals"`},
		{plugins.RolePropose, `I cannot help with that.`, propose, `error: the answer is not a JSON object`},
		{plugins.RolePropose, `{"proposals": "many"}`, propose, `error: the answer does not fit the proposer role: json: cannot unmarshal`},
		{plugins.RoleCritic, `{"label":"improve","reason":"lower lr"}`, critic, `{"label":"improve","reason":"lower lr"}`},
		{plugins.RoleCritic, `{"label":"BigWin"}`, critic, `error: label "BigWin" is not one of improve, tie, lose`},
		{plugins.RoleSummarize, `{"summary":"lowers the lr"}`, summ, `{"summary":"lowers the lr"}`},
		{plugins.RoleSummarize, `{}`, summ, `error: it has no "summary"`},
		{plugins.RoleImplement, `{"infeasible":true,"reason":"no such knob"}`, impl,
			`{"proposal":{"ID":"","Text":"","Mechanism":"","Edits":null,"Patch":""},"infeasible":true,"reason":"no such knob"}`},
		{plugins.RolePredict, `{"confidence":1}`, nil, `error: it has no "predicted_gain"`},
		{plugins.RolePropose, "Ideas:\n1. [optimizer] Raise lr.\n2. Widen.", ideas,
			`{"proposals":[{"ID":"1","Text":"Raise lr.","Mechanism":"optimizer","Edits":null,"Patch":""},{"ID":"2","Text":"Widen.","Mechanism":"","Edits":null,"Patch":""}]}`},
		{plugins.RolePropose, `{"proposals":[{"ID":"a"}]}`, ideas, `error: the proposer's answer holds no idea: the answer has no numbered or bulleted list`},
		{plugins.RoleImplement, "train.py\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n>>>>>>> REPLACE", implSrc,
			`{"proposal":{"ID":"","Text":"","Mechanism":"","Edits":null,"Patch":""},"edits":[{"path":"train.py","search":"lr = 0.03\n","replace":"lr = 0.1\n"}]}`},
		{plugins.RoleImplement, "```diff\n--- a/train.py\n+++ b/train.py\n@@ -1 +1 @@\n-lr = 0.03\n+lr = 0.1\n```", implSrc,
			`{"proposal":{"ID":"","Text":"","Mechanism":"","Edits":null,"Patch":""},"patch":"--- a/train.py\n+++ b/train.py\n@@ -1 +1 @@\n-lr = 0.03\n+lr = 0.1\n"}`},
		{plugins.RoleImplement, "I would raise it.", implSrc, `error: the answer does not fit the implementer role: the answer holds no change`},
		{plugins.RoleImplement, "--- a/train.py\n+++ b/train.py\n@@ -1 +1 @@\n-lr = 0.03\n+lr = 0.1\n", impl, `error: the answer is not a JSON object`},
		{"custom", `{"anything":[1,2]}`, []byte(`{"x":1}`), `{"anything":[1,2]}`},
		{"custom", `[1,2]`, []byte(`{"x":1}`), `error: the answer is not a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
				return 200, nil, completion(tt.answer, 1, 1)
			})
			l, _ := testLLM()
			req := predictReq(srv.URL, nil)
			req.Role = tt.role
			if tt.in != nil {
				req.Payload = tt.in
			}
			resp, err := l.Complete(context.Background(), req)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("answer %q: err = %v, want %q", tt.answer, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("answer %q: %v", tt.answer, err)
			}
			if string(resp.Payload) != tt.want {
				t.Errorf("answer %q: payload %s, want %s", tt.answer, resp.Payload, tt.want)
			}
		})
	}
}

func TestCriticPromptListsLabels(t *testing.T) {
	in, _ := payload.Encode(payload.CritiqueRequest{Task: "t", Labels: payload.Labels5})
	msgs, err := render(&plugins.CompleteRequest{Role: plugins.RoleCritic, Payload: in})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs[0].Content, `"BigWin", "MediumWin", "SmallWin", "Tie", "Lose"`) {
		t.Errorf("system prompt %q does not list the 5-way labels", msgs[0].Content)
	}
	bad, _ := payload.Encode(payload.CritiqueRequest{Task: "t", Labels: "7way"})
	if _, err := render(&plugins.CompleteRequest{Role: plugins.RoleCritic, Payload: bad}); err == nil {
		t.Error("a critic call with an unknown label space rendered")
	}
}

func TestConfig(t *testing.T) {
	const url = "http://localhost:8000/v1"
	tests := []struct {
		cfg  map[string]any
		want string // error text, "" for none
	}{
		{nil, "config.base_url: missing"},
		{map[string]any{"model": "m"}, "config.base_url: missing"},
		{map[string]any{"base_url": "http://localhost:8000/v1/", "requests_per_second": 2.5, "max_concurrency": 4.0, "json_mode": false}, ""},
		{map[string]any{"base_url": url, "api_key": "sk-123"}, "never read from the spec"},
		{map[string]any{"base_url": url, "bse_url": "x"}, "config.bse_url: unknown setting"},
		{map[string]any{"base_url": "localhost:8000"}, "not an http(s) URL"},
		{map[string]any{"base_url": "https://me:secret@h/v1"}, "user info"},
		{map[string]any{"base_url": url, "max_concurrency": 0.0}, "config.max_concurrency: must be at least 1"},
		{map[string]any{"base_url": url, "max_concurrency": 2.5}, "want a whole number"},
		{map[string]any{"base_url": url, "timeout_seconds": "10"}, "config.timeout_seconds: want a number"},
		{map[string]any{"base_url": url, "timeout_seconds": 0.0}, "timeout_seconds: must be more than 0"},
		{map[string]any{"base_url": url, "json_mode": "yes"}, "json_mode: want true or false"},
	}
	for _, tt := range tests {
		_, err := parseConfig(tt.cfg)
		if tt.want == "" && err != nil {
			t.Errorf("%v: %v", tt.cfg, err)
		}
		if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, errConfig)) {
			t.Errorf("%v: err = %v, want a config error containing %q", tt.cfg, err, tt.want)
		}
	}
	// The defaults are the schema's.
	c, err := parseConfig(map[string]any{"base_url": "http://localhost:8000/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{BaseURL: "http://localhost:8000/v1", APIKeyEnv: "OPENAI_API_KEY", MaxConcurrency: 8, MaxRetries: 5,
		Timeout: 120 * time.Second, Backoff: time.Second, MaxBackoff: 60 * time.Second, JSONMode: true}
	if c != want {
		t.Errorf("defaults = %+v, want %+v (trailing slash trimmed)", c, want)
	}
}

func TestMissingModelAndUpdate(t *testing.T) {
	l, _ := testLLM()
	req := predictReq("http://127.0.0.1:1", nil)
	req.Model = ""
	if _, err := l.Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("err = %v, want no model", err)
	}
	if _, err := l.Update(context.Background(), &plugins.UpdateRequest{}); !errors.Is(err, plugins.ErrUnsupported) {
		t.Errorf("Update: err = %v, want ErrUnsupported", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"Fri, 02 Jan 2026 03:04:15 GMT": 10 * time.Second,
		"Fri, 02 Jan 2026 03:04:00 GMT": 0,
		"soon":                          0,
	}
	for in, want := range tests {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// A key a server echoes inside a good answer is redacted before the answer
// leaves the plugin: it would otherwise become a proposal's text and edits,
// stored in the journal, overrides.json, run.json and the report.
func TestAnswerEchoingTheKeyIsRedacted(t *testing.T) {
	knobs := []plugins.Knob{{Name: "lr"}}
	propose, _ := payload.Encode(payload.ProposeRequest{Task: "t", State: "s", Knobs: knobs, N: 1})
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return 200, nil, completion(`{"proposals":[{"ID":"a","Text":"the key is sk-test, Authorization: Bearer sk-test","Mechanism":"m","Edits":{"lr":"sk-test"}}]}`, 1, 1)
	})
	l, _ := testLLM()
	req := predictReq(srv.URL, nil)
	req.Role, req.Payload = plugins.RolePropose, propose
	resp, err := l.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Text, "sk-test") || strings.Contains(string(resp.Payload), "sk-test") {
		t.Errorf("the key survived:\ntext %s\npayload %s", resp.Text, resp.Payload)
	}
	var got payload.ProposeResponse
	if err := payload.Decode(resp.Payload, &got); err != nil || len(got.Proposals) != 1 || got.Proposals[0].Edits["lr"] != "[REDACTED]" {
		t.Errorf("payload %s: %+v, %v", resp.Payload, got, err)
	}
}

// The plugin refuses a base_url with a query string as validate does,
// without repeating it.
func TestBaseURLWithQueryRefused(t *testing.T) {
	_, err := parseConfig(map[string]any{"base_url": "https://llm.example/v1?api-key=K3Y-SECRET"})
	if err == nil || !strings.Contains(err.Error(), "config.base_url: carries a query string") || strings.Contains(err.Error(), "K3Y-SECRET") {
		t.Errorf("got %v", err)
	}
}
