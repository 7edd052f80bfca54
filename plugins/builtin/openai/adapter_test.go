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

// vllmLoRA is an OpenAI-compatible server that serves adapters as vLLM
// does with runtime LoRA updating: a load of a name it serves is refused
// (400, "already been loaded"), an unload of one it does not serve is 404,
// and a chat request may name only the base model or a served adapter.
// It logs every load, unload and chat request in order.
type vllmLoRA struct {
	mu     sync.Mutex
	served map[string]string
	log    []string
}

func (v *vllmLoRA) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	defer v.mu.Unlock()
	var m map[string]string
	var req chatRequest
	switch r.URL.Path {
	case "/v1/load_lora_adapter":
		json.NewDecoder(r.Body).Decode(&m)
		v.log = append(v.log, "load "+m["lora_name"]+" "+m["lora_path"])
		if _, ok := v.served[m["lora_name"]]; ok {
			http.Error(w, `{"message": "The lora adapter '`+m["lora_name"]+`' has already been loaded."}`, http.StatusBadRequest)
			return
		}
		v.served[m["lora_name"]] = m["lora_path"]
		w.Write([]byte("Success"))
	case "/v1/unload_lora_adapter":
		json.NewDecoder(r.Body).Decode(&m)
		v.log = append(v.log, "unload "+m["lora_name"])
		if _, ok := v.served[m["lora_name"]]; !ok {
			http.Error(w, `{"message": "The lora adapter '`+m["lora_name"]+`' cannot be found."}`, http.StatusNotFound)
			return
		}
		delete(v.served, m["lora_name"])
		w.Write([]byte("Success"))
	case "/v1/chat/completions":
		json.NewDecoder(r.Body).Decode(&req)
		if _, ok := v.served[req.Model]; !ok && req.Model != "base" {
			v.log = append(v.log, "refused "+req.Model)
			http.Error(w, `{"error": {"message": "The model `+req.Model+` does not exist."}}`, http.StatusNotFound)
			return
		}
		v.log = append(v.log, "chat "+req.Model)
		w.Write([]byte(completion(`{"proposals": [{"ID": "p", "Text": "t", "Mechanism": "m", "Edits": {}}]}`, 10, 5)))
	default:
		http.NotFound(w, r)
	}
}

// take returns the log since the last take.
func (v *vllmLoRA) take() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := strings.Join(v.log, "; ")
	v.log = nil
	return s
}

// An update loads the new adapter and then unloads the one it replaces;
// after a resume (a new plugin process) the current adapter is loaded
// again before the first request names it, whether the server lost it
// (it restarted too) or still serves it.
func TestAdapterUnloadAndReload(t *testing.T) {
	v := &vllmLoRA{served: map[string]string{}}
	srv := httptest.NewServer(v)
	defer srv.Close()
	cfg := map[string]any{"base_url": srv.URL + "/v1", "api_key_env": "TEST_KEY", "max_retries": 0}
	ctx := context.Background()
	update := func(l *llm, st []byte, name string) []byte {
		t.Helper()
		resp, err := l.Update(ctx, &plugins.UpdateRequest{Config: cfg, Model: "base", State: st, Adapter: &plugins.Adapter{Name: name, Path: "/w/" + name}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.State
	}
	p, _ := payload.Encode(payload.ProposeRequest{Task: "t1", State: "s"})
	propose := func(l *llm, st []byte) error {
		_, err := l.Complete(ctx, &plugins.CompleteRequest{Role: plugins.RolePropose, Model: "base", Payload: p, State: st, Config: cfg})
		return err
	}
	l, _ := testLLM()
	st1 := update(l, nil, "pol-step-1")
	if err := propose(l, st1); err != nil {
		t.Fatal(err)
	}
	st2 := update(l, st1, "pol-step-2")
	if err := propose(l, st2); err != nil {
		t.Fatal(err)
	}
	if got, want := v.take(), "load pol-step-1 /w/pol-step-1; chat pol-step-1; load pol-step-2 /w/pol-step-2; unload pol-step-1; chat pol-step-2"; got != want {
		t.Errorf("first run:\n got %s\nwant %s", got, want)
	}

	// A resumed run: a new plugin process, the server still serving
	// step 2's adapter. It is loaded again (unloaded and loaded, so the
	// name serves the journaled directory) once, before the first request.
	l2, _ := testLLM()
	for range 2 {
		if err := propose(l2, st2); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := v.take(), "load pol-step-2 /w/pol-step-2; unload pol-step-2; load pol-step-2 /w/pol-step-2; chat pol-step-2; chat pol-step-2"; got != want {
		t.Errorf("resumed against a server that kept the adapter:\n got %s\nwant %s", got, want)
	}

	// The server restarted too: it serves no adapter until it is loaded.
	v.mu.Lock()
	v.served = map[string]string{}
	v.mu.Unlock()
	l3, _ := testLLM()
	if err := propose(l3, st2); err != nil {
		t.Fatal(err)
	}
	// The next update replaces step 2's adapter: loaded by this process
	// or not, it is unloaded.
	update(l3, st2, "pol-step-3")
	if got, want := v.take(), "load pol-step-2 /w/pol-step-2; chat pol-step-2; load pol-step-3 /w/pol-step-3; unload pol-step-2"; got != want {
		t.Errorf("resumed against a restarted server:\n got %s\nwant %s", got, want)
	}
	v.mu.Lock()
	if len(v.served) != 1 || v.served["pol-step-3"] != "/w/pol-step-3" {
		t.Errorf("the server serves %v, want only pol-step-3", v.served)
	}
	v.mu.Unlock()

	// A server that cannot load the adapter again fails the proposer call
	// before any chat request, charging nothing.
	v.mu.Lock()
	v.served = map[string]string{"pol-step-3": "/w/pol-step-3"}
	v.mu.Unlock()
	srv.Close()
	l4, _ := testLLM()
	err := propose(l4, st2)
	if u, ok := plugins.UsageOf(err); err == nil || !ok || u != (plugins.Usage{}) || !strings.Contains(err.Error(), "pol-step-2") {
		t.Errorf("reload against a dead server: %v (usage %v, %v)", err, u, ok)
	}
}
