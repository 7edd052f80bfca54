package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdOpenAIServer starts a local OpenAI-compatible server for the rest of
// the script: "openai-server CONTENT" answers every chat completion with
// CONTENT (with CONTENT "A||B||...", a model's i-th request gets the i-th
// answer, round the list: a critic whose votes differ), sets $OPENAI_URL to its /v1 endpoint, and when the script ends
// writes nothing; "openai-server -check N" fails unless exactly N requests
// arrived, each at /v1/chat/completions with the script's bearer key. A
// GET of /v1/models (the run's preflight) is answered and not counted.
//
// Like vLLM with --enable-lora, the server also loads LoRA adapters (POST
// /v1/load_lora_adapter with lora_name and lora_path, a directory that
// must exist; a name it serves already is refused, 400) and unloads them
// (POST /v1/unload_lora_adapter with lora_name; 404 for one it does not
// serve), and refuses a chat request for a model that is neither a
// served adapter nor one of the models it was started with, so a request
// can only name an adapter after it was loaded and before it was
// unloaded. "openai-server -adapters N BASE" fails unless exactly N
// adapters were loaded, each but the last served at least one request and
// was unloaded, and no request named the base model BASE after the first
// load: requests after an update go to the new adapter.
func cmdOpenAIServer(ts *testscript.TestScript, neg bool, args []string) {
	switch {
	case len(args) == 3 && args[0] == "-adapters":
		scriptServer(ts, "-adapters").checkAdapters(ts, args[1], args[2])
		return
	case len(args) == 2 && args[0] == "-check":
		scriptServer(ts, "-check").checkCalls(ts, neg, args[1])
		return
	case neg || len(args) < 1:
		ts.Fatalf("usage: openai-server CONTENT [MODEL...] | openai-server -check N | openai-server -adapters N BASE")
	}
	f, _ := ts.Value("openai").(*fakeOpenAI)
	if f == nil {
		ts.Fatalf("openai-server: no holder for the server")
	}
	f.key = "Bearer " + ts.Getenv("OPENAI_API_KEY")
	f.bodies = nil
	for _, content := range strings.Split(args[0], "||") {
		b, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
		})
		f.bodies = append(f.bodies, b)
	}
	// Models the server starts with; none listed: it serves any model.
	f.models = map[string]bool{}
	for _, m := range args[1:] {
		f.models[m] = true
	}
	f.served, f.baseAfterLoad = map[string]int{}, map[string]int{}
	srv := httptest.NewServer(f)
	ts.Defer(srv.Close)
	ts.Setenv("OPENAI_URL", srv.URL+"/v1")
}

// scriptServer is the script's server, for a check.
func scriptServer(ts *testscript.TestScript, check string) *fakeOpenAI {
	v, _ := ts.Value("openai").(*fakeOpenAI)
	if v == nil {
		ts.Fatalf("openai-server %s: no server started", check)
	}
	return v
}

// checkAdapters is "openai-server -adapters N BASE".
func (v *fakeOpenAI) checkAdapters(ts *testscript.TestScript, n, base string) {
	want, err := strconv.Atoi(n)
	if err != nil {
		ts.Fatalf("openai-server -adapters: %v", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.loads) != want {
		ts.Fatalf("the server loaded %d adapters %v, want %d", len(v.loads), v.loads, want)
	}
	for i, a := range v.loads[:max(len(v.loads)-1, 0)] {
		if v.served[a] == 0 {
			ts.Fatalf("adapter %d (%s) served no request", i+1, a)
		}
	}
	if len(v.loads) > 0 && (len(v.adapters) != 1 || v.adapters[0] != v.loads[len(v.loads)-1]) {
		ts.Fatalf("the server still serves %v (unloaded %v); want only the last adapter loaded", v.adapters, v.unloads)
	}
	if len(v.loads) > 0 && v.baseAfterLoad[base] > 0 {
		ts.Fatalf("%d requests named the base model %s after the first adapter was loaded", v.baseAfterLoad[base], base)
	}
	if v.bad > 0 {
		ts.Fatalf("%d requests were malformed or named a model the server does not serve", v.bad)
	}
	ts.Logf("adapters %v served %v", v.loads, v.served)
}

// checkCalls is "openai-server -check N".
func (v *fakeOpenAI) checkCalls(ts *testscript.TestScript, neg bool, n string) {
	want, err := strconv.Atoi(n)
	if err != nil {
		ts.Fatalf("openai-server -check: %v", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if (v.calls == want) == neg {
		ts.Fatalf("the server received %d requests (%d malformed), want %d", v.calls, v.bad, want)
	}
	if v.bad > 0 {
		ts.Fatalf("%d requests were not chat completions with the key", v.bad)
	}
}

type fakeOpenAI struct {
	mu         sync.Mutex
	key        string
	calls, bad int
	// probes counts the preflight's model listings.
	probes int
	// bodies are the chat completions' answers, taken in turn per model;
	// models those the server started with (none: any).
	bodies [][]byte
	models map[string]bool
	// loads lists the adapters loaded, in order, unloads those unloaded,
	// and adapters those the server serves now; served counts the chat
	// requests per model; baseAfterLoad those after the first load.
	loads, unloads, adapters []string
	served                   map[string]int
	baseAfterLoad            map[string]int
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.URL.Path == "/v1/load_lora_adapter":
		f.load(w, r)
	case r.URL.Path == "/v1/unload_lora_adapter":
		f.unload(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		// The run's preflight: not a chat request, not counted as one.
		if r.Header.Get("Authorization") != f.key {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		f.probes++
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"object": "list", "data": [{"id": "local-test-model", "object": "model"}]}`))
	default:
		f.chat(w, r)
	}
}

func (f *fakeOpenAI) load(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string `json:"lora_name"`
		Path string `json:"lora_path"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Name == "" {
		f.bad++
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if st, err := os.Stat(req.Path); err != nil || !st.IsDir() {
		f.bad++
		http.Error(w, "no adapter at "+req.Path, http.StatusBadRequest)
		return
	}
	if slices.Contains(f.adapters, req.Name) {
		http.Error(w, `{"message": "The lora adapter '`+req.Name+`' has already been loaded."}`, http.StatusBadRequest)
		return
	}
	f.loads = append(f.loads, req.Name)
	f.adapters = append(f.adapters, req.Name)
	w.Write([]byte("Success: LoRA adapter '" + req.Name + "' added successfully."))
}

func (f *fakeOpenAI) unload(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string `json:"lora_name"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Name == "" {
		f.bad++
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	i := slices.Index(f.adapters, req.Name)
	if i < 0 {
		http.Error(w, `{"message": "The lora adapter '`+req.Name+`' cannot be found."}`, http.StatusNotFound)
		return
	}
	f.adapters = slices.Delete(f.adapters, i, i+1)
	f.unloads = append(f.unloads, req.Name)
	w.Write([]byte("Success: LoRA adapter '" + req.Name + "' removed successfully."))
}

func (f *fakeOpenAI) chat(w http.ResponseWriter, r *http.Request) {
	f.calls++
	var req struct {
		Model string `json:"model"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != f.key || json.NewDecoder(r.Body).Decode(&req) != nil {
		f.bad++
	}
	known := len(f.models) == 0 || f.models[req.Model]
	for _, a := range f.adapters {
		known = known || a == req.Model
	}
	if !known {
		f.bad++
		http.Error(w, `{"error": {"message": "The model `+req.Model+` does not exist."}}`, http.StatusNotFound)
		return
	}
	body := f.bodies[f.served[req.Model]%len(f.bodies)]
	f.served[req.Model]++
	if len(f.loads) > 0 {
		f.baseAfterLoad[req.Model]++
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
