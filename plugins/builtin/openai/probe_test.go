package openai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A closed port is one error naming the URL and the refused connection,
// after one attempt (no retry, no backoff).
func TestProbeClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	err = Probe(context.Background(), map[string]any{"base_url": url, "max_retries": 5})
	if err == nil {
		t.Fatal("a closed port answered the probe")
	}
	for _, want := range []string{"the endpoint " + url + " does not answer", "GET " + url + "/models", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("probe error %q does not say %q", err, want)
		}
	}
}

// The probe is one GET of base_url + /models, with the key; a server that
// answers is up even when it serves no model listing, and a refused key
// is an error that names the variable.
func TestProbeRequest(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		s := status
		mu.Unlock()
		w.WriteHeader(s)
	}))
	defer srv.Close()
	t.Setenv("PROBE_TEST_KEY", "sk-probe-123")
	cfg := map[string]any{"base_url": srv.URL + "/v1/", "api_key_env": "PROBE_TEST_KEY"}
	for _, s := range []int{http.StatusOK, http.StatusNotFound} {
		status = s
		if err := Probe(context.Background(), cfg); err != nil {
			t.Errorf("HTTP %d: %v, want a server that is up", s, err)
		}
	}
	status = http.StatusUnauthorized
	err := Probe(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "PROBE_TEST_KEY") || strings.Contains(err.Error(), "sk-probe-123") {
		t.Errorf("a refused key: %v, want an error naming $PROBE_TEST_KEY and not the key", err)
	}
	want := "GET /v1/models Bearer sk-probe-123"
	if len(seen) != 3 || seen[0] != want || seen[2] != want {
		t.Errorf("requests %q, want three of %q", seen, want)
	}
	if err := Probe(context.Background(), map[string]any{"model": "m"}); err == nil || !strings.Contains(err.Error(), "base_url") {
		t.Errorf("no base_url: %v, want the config error", err)
	}
}
