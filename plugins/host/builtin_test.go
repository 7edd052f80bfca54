package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/version"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// TestBuiltinOpenAI locks the openai built-in and drives it as a
// subprocess (this test binary, in plugin mode, as the assay binary would
// be) against a local chat-completions server, in a directory far from
// any Assay source tree.
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
	lockPath := filepath.Join(dir, testLock)
	var log strings.Builder
	specs := []Spec{{Name: "gpt", Kind: plugins.KindLLM, Source: "builtin:openai", Version: "1"}}
	lock, err := Init(context.Background(), specs, lockPath, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	want := LockedPlugin{Name: "gpt", Kind: plugins.KindLLM, Source: "builtin:openai", Version: "1", AssayVersion: version.Release}
	if lp := lock.Plugins[0]; !sameEntry(lp, want) || lp.Name != want.Name {
		t.Errorf("locked %+v, want %+v", lp, want)
	}
	if !strings.Contains(log.String(), `locked plugin "gpt" (builtin:openai)`) {
		t.Errorf("Init log %q does not say what it locked", log.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".assay")); err == nil {
		t.Error("Init of a built-in wrote a plugin cache: nothing should be built")
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

	// Init again changes nothing and says nothing.
	before, _ := os.ReadFile(lockPath)
	log.Reset()
	if _, err := Init(context.Background(), specs, lockPath, Options{Log: &log}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) || log.Len() != 0 {
		t.Errorf("a second Init changed the lock (log %q)", log.String())
	}
}

// A built-in locked by another Assay release is refused by Verify, Init
// and Open with what to run, until an upgrade re-locks it.
func TestBuiltinLockedByAnotherRelease(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, testLock)
	os.WriteFile(lockPath, []byte(`{"format_version": 2, "plugins": [{"name": "llm", "kind": "llm", "source": "builtin:offline", "assay_version": "0.0.1"}]}`), 0o644)
	specs := []Spec{{Name: "llm", Kind: plugins.KindLLM, Source: "builtin:offline"}}
	lock, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	var re *ReleaseError
	if err := Verify(lock, lockPath, specs); !errors.As(err, &re) || !strings.Contains(err.Error(), "assay init -upgrade=llm") || !strings.Contains(err.Error(), "0.0.1") {
		t.Errorf("Verify: %v, want a *ReleaseError saying to upgrade", err)
	}
	if _, err := Open(context.Background(), lock, "llm"); !errors.As(err, &re) || !errors.Is(err, plugins.ErrPluginStart) {
		t.Errorf("Open: %v, want a *ReleaseError", err)
	}
	if _, err := Init(context.Background(), specs, lockPath, Options{}); !errors.As(err, &re) {
		t.Errorf("Init without upgrade: %v, want a *ReleaseError", err)
	}
	var log strings.Builder
	lock, err = Init(context.Background(), specs, lockPath, Options{Upgrade: []string{"llm"}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if lock.Plugins[0].AssayVersion != version.Release || !strings.Contains(log.String(), `upgraded plugin "llm"`) {
		t.Errorf("upgrade locked %+v (log %q)", lock.Plugins[0], log.String())
	}
	if err := Verify(lock, lockPath, specs); err != nil {
		t.Errorf("Verify after the upgrade: %v", err)
	}
}
