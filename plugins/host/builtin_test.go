package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"assay/plugins"
	"assay/plugins/payload"
)

// TestBuiltinOpenAI builds the openai built-in through Init, locks it, and
// drives it as a subprocess against a local chat-completions server.
func TestBuiltinOpenAI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-host-test" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"choices":[{"message":{"content":"{\"summary\":\"lowers the learning rate\"}"}}],"usage":{"prompt_tokens":50,"completion_tokens":9}}`)
	}))
	defer srv.Close()
	t.Setenv("ASSAY_HOST_TEST_KEY", "sk-host-test")

	dir := t.TempDir()
	specDir := filepath.Join(dir, "exp")
	os.Mkdir(specDir, 0o755)
	lockPath := filepath.Join(specDir, LockFileName)
	var log strings.Builder
	lock, err := Init(context.Background(), []Spec{{Name: "gpt", Kind: plugins.KindLLM, Source: "builtin:openai", Version: "1"}},
		lockPath, Options{ModuleRoot: moduleRoot, BuildLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	lp := lock.Plugins[0]
	if lp.Path != filepath.Join(".assay", "plugins", "openai") {
		t.Errorf("locked path %q, want .assay/plugins/openai", lp.Path)
	}
	if !strings.Contains(log.String(), "go build -trimpath -o") {
		t.Errorf("build log %q", log.String())
	}

	p, err := Open(context.Background(), lock, "gpt")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	in, _ := payload.Encode(payload.SummarizeRequest{Task: "t"})
	resp, err := p.LLM().Complete(context.Background(), &plugins.CompleteRequest{
		Role: plugins.RoleSummarize, Model: "m", Payload: in,
		Config: map[string]any{"base_url": srv.URL, "api_key_env": "ASSAY_HOST_TEST_KEY"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out payload.SummarizeResponse
	if err := json.Unmarshal(resp.Payload, &out); err != nil || out.Summary != "lowers the learning rate" || resp.Usage != (plugins.Usage{In: 50, Out: 9}) {
		t.Errorf("Complete = %+v (%v)", resp, err)
	}
	p.Close()

	// A missing built-in binary is rebuilt on Open, reproducibly: the new
	// build still matches the lock.
	if err := os.Remove(lock.BinaryPath(lp)); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RootEnv, moduleRoot)
	read, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Open(context.Background(), read, "gpt")
	if err != nil {
		t.Fatalf("Open after the binary was deleted: %v", err)
	}
	p2.Close()

	// A patched cached binary keeps its Go build ID, so `go build -o` over
	// it would leave it alone; Init must replace it with a fresh build that
	// matches the lock, never lock the patched one.
	bin := lock.BinaryPath(lp)
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("patched"))
	f.Close()
	if _, err := Init(context.Background(), []Spec{{Name: "gpt", Kind: plugins.KindLLM, Source: "builtin:openai", Version: "1"}},
		lockPath, Options{}); err != nil {
		t.Fatalf("Init over a patched built-in: %v", err)
	}
	if sum, _ := FileSHA256(bin); sum != lp.SHA256 {
		t.Errorf("after Init the built-in binary has SHA-256 %s, want the locked %s", sum, lp.SHA256)
	}

	// Init again is cheap and gives the same lock.
	again, err := Init(context.Background(), []Spec{{Name: "gpt", Kind: plugins.KindLLM, Source: "builtin:openai", Version: "1"}},
		lockPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Plugins[0] != lp {
		t.Errorf("re-Init locked %+v, want %+v", again.Plugins[0], lp)
	}
}
