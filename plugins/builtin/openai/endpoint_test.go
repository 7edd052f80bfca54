package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// dialLog records every connection the plugin opens, so a test can prove
// which hosts were contacted and that nothing else was.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialLog) transport() *http.Transport {
	var dialer net.Dialer
	return &http.Transport{
		Proxy:             nil, // no proxy from the environment: every dial is the plugin's own
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			d.mu.Lock()
			d.addrs = append(d.addrs, addr)
			d.mu.Unlock()
			return dialer.DialContext(ctx, network, addr)
		},
	}
}

func (d *dialLog) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// TestNoBaseURLNoNetwork: a request whose config names no base_url fails
// with the config error before any connection is opened; there is no
// default endpoint to fall back to.
func TestNoBaseURLNoNetwork(t *testing.T) {
	dials := &dialLog{}
	l, _ := testLLM()
	l.transport = dials.transport()
	for _, cfg := range []map[string]any{
		nil,
		{},
		{"model": "gpt-test", "api_key_env": "TEST_KEY"},
		{"base_url": ""},
		{"base_url": nil},
	} {
		req := predictReq("unused", nil)
		req.Config = cfg
		_, err := l.Complete(context.Background(), req)
		if !errors.Is(err, errConfig) {
			t.Errorf("config %v: err = %v, want the config error", cfg, err)
		}
		if err == nil || !strings.Contains(err.Error(), "base_url") {
			t.Errorf("config %v: err = %v, want it to name base_url", cfg, err)
		}
	}
	if got := dials.list(); len(got) != 0 {
		t.Errorf("the plugin dialled %v without a base_url", got)
	}
}

// TestRequestsGoOnlyToBaseURL: every connection, retries included, goes to
// the server base_url names.
func TestRequestsGoOnlyToBaseURL(t *testing.T) {
	srv := newFakeServer(t, func(n int, _ chatRequest) (int, map[string]string, string) {
		if n < 2 {
			return 503, nil, "busy"
		}
		return 200, nil, completion(`{"predicted_gain": 0.1, "confidence": 0.5}`, 1, 1)
	})
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("test server at %s, want 127.0.0.1", srv.URL)
	}
	dials := &dialLog{}
	l, _ := testLLM()
	l.transport = dials.transport()
	for i := 0; i < 2; i++ {
		if _, err := l.Complete(context.Background(), predictReq(srv.URL, nil)); err != nil {
			t.Fatal(err)
		}
	}
	got := dials.list()
	if len(got) != srv.count() || srv.count() != 4 {
		t.Errorf("%d dials for %d requests, want 4 of each", len(got), srv.count())
	}
	want := srv.Listener.Addr().String()
	for _, a := range got {
		if a != want {
			t.Errorf("dialled %s, want only %s", a, want)
		}
	}
}

// TestRedirectNotFollowed: a server that redirects cannot send the prompt
// or the key anywhere else; the redirect is an error.
func TestRedirectNotFollowed(t *testing.T) {
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere++
		fmt.Fprint(w, completion(`{"predicted_gain": 0.1, "confidence": 0.5}`, 1, 1))
	}))
	defer other.Close()
	srv := newFakeServer(t, func(int, chatRequest) (int, map[string]string, string) {
		return http.StatusTemporaryRedirect, map[string]string{"Location": other.URL + "/v1/chat/completions"}, ""
	})
	dials := &dialLog{}
	l, _ := testLLM()
	l.transport = dials.transport()
	_, err := l.Complete(context.Background(), predictReq(srv.URL, nil))
	if err == nil || !strings.Contains(err.Error(), "HTTP 307") {
		t.Errorf("err = %v, want the redirect refused", err)
	}
	if elsewhere != 0 {
		t.Errorf("the redirect target got %d requests", elsewhere)
	}
	for _, a := range dials.list() {
		if a != srv.Listener.Addr().String() {
			t.Errorf("dialled %s", a)
		}
	}
}

// TestServerEchoingTheKey: whatever the server echoes (the key, the
// Authorization header, other keys), the errors the plugin returns carry
// no credential.
func TestServerEchoingTheKey(t *testing.T) {
	const key = "sk-test"
	for _, status := range []int{400, 401, 500, 200} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				auth := r.Header.Get("Authorization")
				w.Header().Set("X-Echo", auth)
				w.WriteHeader(status)
				// A 200 that is not a chat completion is quoted in the error too.
				fmt.Fprintf(w, `{"error": {"message": "Incorrect API key provided: %s (sent %q) other sk-proj-abcdefghijklmnop"}}`,
					strings.TrimPrefix(auth, "Bearer "), auth)
			}))
			defer srv.Close()
			l, _ := testLLM()
			_, err := l.Complete(context.Background(), predictReq(srv.URL, map[string]any{"max_retries": 0.0}))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, leak := range []string{key, "Bearer sk", "sk-proj-abcdefghijklmnop"} {
				if strings.Contains(msg, leak) {
					t.Errorf("error carries %q: %s", leak, msg)
				}
			}
			if !strings.Contains(msg, "[REDACTED]") {
				t.Errorf("error %q shows no redaction; was the body dropped?", msg)
			}
		})
	}
}

// TestConfigErrorIsPermanent: a bad config is the config error, named by
// key, and the spec's secret value in a forbidden key is not repeated.
func TestConfigErrorIsPermanent(t *testing.T) {
	l, _ := testLLM()
	req := predictReq("http://127.0.0.1:1", map[string]any{"api_key": "sk-from-the-spec-123456", "max_concurrency": 0.0})
	_, err := l.Complete(context.Background(), req)
	if !errors.Is(err, errConfig) {
		t.Fatalf("err = %v, want the config error", err)
	}
	for _, want := range []string{"config.api_key", "config.max_concurrency"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "sk-from-the-spec") {
		t.Errorf("err repeats the key: %v", err)
	}
}
