package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Update with an adapter has the server load it (POST
// /v1/load_lora_adapter, with the key), and a proposer call with the
// returned state asks for the adapter as its model; other roles keep
// theirs. Without an adapter, Update is unsupported.
func TestLoadAdapterThenServeIt(t *testing.T) {
	var mu sync.Mutex
	var loads []map[string]string
	var models []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/v1/load_lora_adapter":
			var m map[string]string
			json.NewDecoder(r.Body).Decode(&m)
			loads = append(loads, m)
			w.Write([]byte("Success"))
		case "/v1/chat/completions":
			var req chatRequest
			json.NewDecoder(r.Body).Decode(&req)
			models = append(models, req.Model)
			w.Write([]byte(completion(`{"proposals": [{"ID": "p", "Text": "t", "Mechanism": "m", "Edits": {}}], "predicted_gain": 0.1}`, 10, 5)))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	l, _ := testLLM()
	cfg := predictReq(srv.URL, nil).Config

	if _, err := l.Update(context.Background(), &plugins.UpdateRequest{Config: cfg}); !errors.Is(err, plugins.ErrUnsupported) {
		t.Errorf("update without an adapter: %v, want ErrUnsupported", err)
	}
	resp, err := l.Update(context.Background(), &plugins.UpdateRequest{Config: cfg, Model: "base", Adapter: &plugins.Adapter{Name: "policy-step-1", Path: "/w/adapter"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != 1 || loads[0]["lora_name"] != "policy-step-1" || loads[0]["lora_path"] != "/w/adapter" {
		t.Fatalf("loads %v", loads)
	}
	p, _ := payload.Encode(payload.ProposeRequest{Task: "t1", State: "s"})
	prop := &plugins.CompleteRequest{Role: plugins.RolePropose, Model: "base", Payload: p, State: resp.State, Config: cfg}
	if _, err := l.Complete(context.Background(), prop); err != nil {
		t.Fatal(err)
	}
	prop.State = nil
	if _, err := l.Complete(context.Background(), prop); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Complete(context.Background(), predictReq(srv.URL, nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(models, " "); got != "policy-step-1 base gpt-test" {
		t.Errorf("models %q, want the adapter, then the base model without state, then the predictor's own", got)
	}
	// A state this plugin did not write is refused, not sent as a model.
	prop.State = []byte(`{"weights": [1, 2]}`)
	if _, err := l.Complete(context.Background(), prop); !errors.Is(err, plugins.ErrConfig) {
		t.Errorf("foreign state: %v, want a config error", err)
	}
	// A server that refuses to load fails the update, with what it said.
	_, err = l.Update(context.Background(), &plugins.UpdateRequest{Config: map[string]any{"base_url": srv.URL + "/v1", "api_key_env": "NONE", "max_retries": 0}, Adapter: &plugins.Adapter{Name: "x", Path: "/p"}})
	if err == nil || !strings.Contains(err.Error(), "loading adapter x") {
		t.Errorf("refused load: %v", err)
	}
}
