package main

import (
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/assay-lang/assay/plugins/builtin"
)

var update = flag.Bool("update", false, "rewrite the golden files inside testdata/script/*.txtar")

// TestMain serves built-in plugins when this test binary is started as one
// (the host starts the running executable, which under testscript is this
// binary), and otherwise runs the scripts with it as the assay command.
func TestMain(m *testing.M) {
	builtin.Main()
	testscript.Main(m, map[string]func(){"assay": main})
}

// TestScripts runs the CLI scripts in testdata/script. $SPECS is the
// repository's specs directory, so scripts check the example specs'
// figures. go test ./cmd/assay -update rewrites golden sections.
func TestScripts(t *testing.T) {
	specs, err := filepath.Abs(filepath.Join("..", "..", "specs"))
	if err != nil {
		t.Fatal(err)
	}
	// Scripts that run go (a suite's evaluation command) share the build
	// cache of the test, which testscript's bare environment would lose.
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("SPECS", specs)
			env.Setenv("NO_COLOR", "1")
			if c := strings.TrimSpace(string(gocache)); c != "" {
				env.Setenv("GOCACHE", c)
			}
			env.Values["openai"] = &fakeOpenAI{}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":      cmdExitCode,
			"openai-server": cmdOpenAIServer,
			"checkpairs":    cmdCheckPairs,
			"same-lines":    cmdSameLines,
		},
	})
}

// cmdExitCode runs "exitcode N prog args..." and fails unless prog exits
// with code N. (testscript's exec only tells zero from non-zero.)
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "PATH="+ts.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d; output:\n%s", strings.Join(args[1:], " "), got, want, out)
	}
}

// cmdSameLines runs "same-lines FILE1 FILE2 PREFIX..." and fails unless,
// for each PREFIX, both files have a line that begins with it and the
// lines are equal (two runs' status figures, say).
func cmdSameLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: same-lines FILE1 FILE2 PREFIX...")
	}
	line := func(file, prefix string) string {
		for _, l := range strings.Split(ts.ReadFile(file), "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		ts.Fatalf("%s has no line beginning %q", file, prefix)
		return ""
	}
	for _, p := range args[2:] {
		if a, b := line(args[0], p), line(args[1], p); a != b {
			ts.Fatalf("%s: %q\n%s: %q", args[0], a, args[1], b)
		}
	}
}

func TestNormalizeArgs(t *testing.T) {
	got := strings.Join(normalizeArgs([]string{"plan", "-var", "a=1", "-var-file=x.hcl", "-json", "-w", "-check", "--", "-var"}), " ")
	want := "plan --var a=1 --var-file=x.hcl --json -w --check -- -var"
	if got != want {
		t.Errorf("normalizeArgs = %q, want %q", got, want)
	}
}

// cmdOpenAIServer starts a local OpenAI-compatible server for the rest of
// the script: "openai-server CONTENT" answers every chat completion with
// CONTENT, sets $OPENAI_URL to its /v1 endpoint, and when the script ends
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
	if len(args) == 3 && args[0] == "-adapters" {
		want, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("openai-server -adapters: %v", err)
		}
		v, _ := ts.Value("openai").(*fakeOpenAI)
		if v == nil {
			ts.Fatalf("openai-server -adapters: no server started")
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
		if len(v.loads) > 0 && v.baseAfterLoad[args[2]] > 0 {
			ts.Fatalf("%d requests named the base model %s after the first adapter was loaded", v.baseAfterLoad[args[2]], args[2])
		}
		if v.bad > 0 {
			ts.Fatalf("%d requests were malformed or named a model the server does not serve", v.bad)
		}
		ts.Logf("adapters %v served %v", v.loads, v.served)
		return
	}
	if len(args) == 2 && args[0] == "-check" {
		want, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("openai-server -check: %v", err)
		}
		v, _ := ts.Value("openai").(*fakeOpenAI)
		if v == nil {
			ts.Fatalf("openai-server -check: no server started")
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		if (v.calls == want) == neg {
			ts.Fatalf("the server received %d requests (%d malformed), want %d", v.calls, v.bad, want)
		}
		if v.bad > 0 {
			ts.Fatalf("%d requests were not chat completions with the key", v.bad)
		}
		return
	}
	if neg || len(args) < 1 {
		ts.Fatalf("usage: openai-server CONTENT [MODEL...] | openai-server -check N | openai-server -adapters N BASE")
	}
	f, _ := ts.Value("openai").(*fakeOpenAI)
	if f == nil {
		ts.Fatalf("openai-server: no holder for the server")
	}
	f.key = "Bearer " + ts.Getenv("OPENAI_API_KEY")
	body, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": args[0]}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	})
	// Models the server starts with; none listed: it serves any model.
	models := map[string]bool{}
	for _, m := range args[1:] {
		models[m] = true
	}
	f.served, f.baseAfterLoad = map[string]int{}, map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.URL.Path == "/v1/load_lora_adapter" {
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
			return
		}
		if r.URL.Path == "/v1/unload_lora_adapter" {
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
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
			// The run's preflight: not a chat request, not counted as one.
			if r.Header.Get("Authorization") != f.key {
				http.Error(w, "no key", http.StatusUnauthorized)
				return
			}
			f.probes++
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"object": "list", "data": [{"id": "local-test-model", "object": "model"}]}`))
			return
		}
		f.calls++
		var req struct {
			Model string `json:"model"`
		}
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != f.key || json.NewDecoder(r.Body).Decode(&req) != nil {
			f.bad++
		}
		known := len(models) == 0 || models[req.Model]
		for _, a := range f.adapters {
			known = known || a == req.Model
		}
		if !known {
			f.bad++
			http.Error(w, `{"error": {"message": "The model `+req.Model+` does not exist."}}`, http.StatusNotFound)
			return
		}
		f.served[req.Model]++
		if len(f.loads) > 0 {
			f.baseAfterLoad[req.Model]++
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("OPENAI_URL", srv.URL+"/v1")
}

type fakeOpenAI struct {
	mu         sync.Mutex
	key        string
	calls, bad int
	// probes counts the preflight's model listings.
	probes int
	// loads lists the adapters loaded, in order, unloads those unloaded,
	// and adapters those the server serves now; served counts the chat
	// requests per model; baseAfterLoad those after the first load.
	loads, unloads, adapters []string
	served                   map[string]int
	baseAfterLoad            map[string]int
}
