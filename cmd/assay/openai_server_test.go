package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
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
// load: requests after an update go to the new adapter (BASE "-": a run
// whose evaluation asks the base model too).
//
// "openai-server -script FILE MODEL..." answers from FILE instead, a JSON
// object of a list of answers per model: each model's requests take its
// answers in order, the last one repeated once they run out, with "{{n}}"
// in an answer replaced by the answer's number for its model (1-based),
// so every answer can differ; an answer "file:NAME" is the script's file
// NAME, written as a model writes it. A request naming a loaded adapter is
// answered from the first MODEL's list, the model vLLM serves adapters
// on. The server keeps every answer it gave; "openai-server -batches
// MODEL BATCH..." fails unless the completions of the policy update
// batch file BATCH i are, as a multiset and byte for byte, the answers
// the server gave to MODEL's requests while i adapters were loaded.
// "openai-server -calls FILE" writes the requests received so far;
// "openai-server -sent MODEL REGEXP" fails unless a chat request for MODEL
// (itself a regular expression, matched whole: "a|b-.*" names several)
// held a message that matches REGEXP.
func cmdOpenAIServer(ts *testscript.TestScript, neg bool, args []string) {
	switch {
	case len(args) >= 3 && args[0] == "-batches":
		scriptServer(ts, "-batches").checkBatches(ts, args[1], args[2:])
		return
	case len(args) == 3 && args[0] == "-sent":
		scriptServer(ts, "-sent").checkSent(ts, neg, args[1], args[2])
		return
	case len(args) == 2 && args[0] == "-calls":
		scriptServer(ts, "-calls").writeCalls(ts, args[1])
		return
	case len(args) >= 3 && args[0] == "-script":
		startScripted(ts, args[1], args[2:])
		return
	case len(args) == 3 && args[0] == "-adapters":
		scriptServer(ts, "-adapters").checkAdapters(ts, args[1], args[2])
		return
	case len(args) == 2 && args[0] == "-check":
		scriptServer(ts, "-check").checkCalls(ts, neg, args[1])
		return
	case neg || len(args) < 1 || strings.HasPrefix(args[0], "-"):
		ts.Fatalf("usage: openai-server CONTENT [MODEL...] | openai-server -script FILE MODEL... | openai-server -check N | openai-server -adapters N BASE | openai-server -batches MODEL BATCH... | openai-server -calls FILE")
	}
	f, _ := ts.Value("openai").(*fakeOpenAI)
	if f == nil {
		ts.Fatalf("openai-server: no holder for the server")
	}
	f.bodies = nil
	for _, content := range strings.Split(args[0], "||") {
		f.bodies = append(f.bodies, completionBody(content))
	}
	f.script = nil
	f.start(ts, args[1:])
}

// start serves f for the rest of the script, with the models it starts
// with (none listed: it serves any model).
func (f *fakeOpenAI) start(ts *testscript.TestScript, models []string) {
	f.key = "Bearer " + ts.Getenv("OPENAI_API_KEY")
	f.models = map[string]bool{}
	for _, m := range models {
		f.models[m] = true
	}
	f.first = ""
	if len(models) > 0 {
		f.first = models[0]
	}
	f.served, f.baseAfterLoad = map[string]int{}, map[string]int{}
	srv := httptest.NewServer(f)
	ts.Defer(srv.Close)
	ts.Setenv("OPENAI_URL", srv.URL+"/v1")
}

// startScripted is "openai-server -script FILE MODEL...".
func startScripted(ts *testscript.TestScript, file string, models []string) {
	f, _ := ts.Value("openai").(*fakeOpenAI)
	if f == nil {
		ts.Fatalf("openai-server: no holder for the server")
	}
	var script map[string][]string
	if err := json.Unmarshal([]byte(ts.ReadFile(file)), &script); err != nil {
		ts.Fatalf("openai-server -script %s: %v", file, err)
	}
	for _, m := range models {
		if len(script[m]) == 0 {
			ts.Fatalf("openai-server -script %s: no answers for model %s", file, m)
		}
	}
	for _, answers := range script {
		for i, a := range answers {
			if name, ok := strings.CutPrefix(a, "file:"); ok {
				answers[i] = ts.ReadFile(name)
			}
		}
	}
	f.script, f.bodies = script, nil
	f.start(ts, models)
}

// completionBody is a chat completion that answers content.
func completionBody(content string) []byte {
	b, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	})
	return b
}

// writeCalls is "openai-server -calls FILE": it writes the requests the
// server has received so far (chat requests, adapter loads and unloads)
// to FILE, for cmp with a later count.
func (v *fakeOpenAI) writeCalls(ts *testscript.TestScript, file string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := fmt.Sprintf("%d chat requests, %d adapter loads, %d unloads\n", v.calls, len(v.loads), len(v.unloads))
	if err := os.WriteFile(ts.MkAbs(file), []byte(out), 0o644); err != nil {
		ts.Fatalf("openai-server -calls: %v", err)
	}
}

// checkSent is "openai-server -sent MODEL REGEXP".
func (v *fakeOpenAI) checkSent(ts *testscript.TestScript, neg bool, model, expr string) {
	re, err := regexp.Compile(expr)
	if err != nil {
		ts.Fatalf("openai-server -sent: %v", err)
	}
	models, err := regexp.Compile("^(?:" + model + ")$")
	if err != nil {
		ts.Fatalf("openai-server -sent: %v", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, r := range v.sent {
		if models.MatchString(r.model) && slices.ContainsFunc(r.messages, re.MatchString) {
			n++
		}
	}
	if (n > 0) == neg {
		ts.Fatalf("%d requests for %s held a message matching %q", n, model, expr)
	}
}

// checkBatches is "openai-server -batches MODEL BATCH...".
func (v *fakeOpenAI) checkBatches(ts *testscript.TestScript, model string, batches []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for i, file := range batches {
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(file)), "\n") {
			var l struct {
				Completion *string `json:"completion"`
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil || l.Completion == nil {
				ts.Fatalf("%s: a line without a completion (%v): %.200s", file, err, line)
			}
			got = append(got, *l.Completion)
		}
		var want []string
		for _, a := range v.answers {
			if a.model == model && a.loaded == i {
				want = append(want, a.content)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			ts.Fatalf("%s holds the completions %q; the server answered %s with %q while %d adapters were loaded", file, got, model, want, i)
		}
		ts.Logf("%s: %d completions, each one the server's answer", file, len(got))
	}
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
	if len(v.loads) > 0 && base != "-" && v.baseAfterLoad[base] > 0 {
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
	// bodies are the chat completions' answers, taken in turn per model,
	// or script the answers per model (first's for an adapter); models
	// those the server started with (none: any).
	bodies [][]byte
	script map[string][]string
	first  string
	models map[string]bool
	// answers is every scripted answer given, in order; sent every chat
	// request's model and messages.
	answers []scriptedAnswer
	sent    []sentRequest
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
		Model    string `json:"model"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != f.key || json.NewDecoder(r.Body).Decode(&req) != nil {
		f.bad++
	}
	sent := sentRequest{model: req.Model}
	for _, m := range req.Messages {
		sent.messages = append(sent.messages, m.Content)
	}
	f.sent = append(f.sent, sent)
	known := len(f.models) == 0 || f.models[req.Model]
	for _, a := range f.adapters {
		known = known || a == req.Model
	}
	if !known {
		f.bad++
		http.Error(w, `{"error": {"message": "The model `+req.Model+` does not exist."}}`, http.StatusNotFound)
		return
	}
	turn := f.served[req.Model]
	f.served[req.Model]++
	if len(f.loads) > 0 {
		f.baseAfterLoad[req.Model]++
	}
	w.Header().Set("Content-Type", "application/json")
	if f.script == nil {
		w.Write(f.bodies[turn%len(f.bodies)])
		return
	}
	model := req.Model
	if f.script[model] == nil {
		model = f.first // an adapter, served on the first model
	}
	list := f.script[model]
	n := 1
	for _, a := range f.answers {
		if a.model == model {
			n++
		}
	}
	content := strings.ReplaceAll(list[min(n, len(list))-1], "{{n}}", strconv.Itoa(n))
	f.answers = append(f.answers, scriptedAnswer{model: model, loaded: len(f.loads), content: content})
	w.Write(completionBody(content))
}

// sentRequest is one chat request: its model and its messages' contents.
type sentRequest struct {
	model    string
	messages []string
}

// scriptedAnswer is one answer of a scripted server: the model whose list
// it came from, how many adapters were loaded when it was asked, and the
// content.
type scriptedAnswer struct {
	model   string
	loaded  int
	content string
}
