package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/payload"
)

func storeFixture() (*plan.Variant, *plan.Role) {
	role := &plan.Role{Name: "understand", Kind: "summarizer", Plugin: "llm", Model: "m1", Temperature: 0.4,
		TokensOut: plan.Count{High: 200}, Prompt: &plan.Prompt{System: "Say the criteria.", User: "{{.Input}}"}}
	v := &plan.Variant{Roles: []*plan.Role{role}, Plugins: []*plan.Plugin{{Name: "llm", Kind: "llm", Source: "builtin:openai", Config: map[string]any{"base_url": "http://a"}}}}
	return v, role
}

// TestCriteriaIdentity: everything that determines a criteria role's
// answer names another store entry; the seed and the role's name do not.
func TestCriteriaIdentity(t *testing.T) {
	digest := func(edit func(v *plan.Variant, r *plan.Role), req ...string) string {
		v, r := storeFixture()
		if edit != nil {
			edit(v, r)
		}
		task := "t1"
		if len(req) > 0 {
			task = req[0]
		}
		id := criteriaIdentityOf(v, r, criteriaRequest("env", task, "desc", "dom"))
		d, err := id.digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest(nil)
	for name, edit := range map[string]func(v *plan.Variant, r *plan.Role){
		"model":       func(v *plan.Variant, r *plan.Role) { r.Model = "m2" },
		"temperature": func(v *plan.Variant, r *plan.Role) { r.Temperature = 0.7 },
		"max tokens":  func(v *plan.Variant, r *plan.Role) { r.TokensOut.High = 400 },
		"system":      func(v *plan.Variant, r *plan.Role) { r.Prompt.System = "Say them." },
		"user":        func(v *plan.Variant, r *plan.Role) { r.Prompt.User = "{{.Task.Name}}" },
		"endpoint":    func(v *plan.Variant, r *plan.Role) { v.Plugins[0].Config = map[string]any{"base_url": "http://b"} },
		"plugin":      func(v *plan.Variant, r *plan.Role) { v.Plugins[0].Source = "exec:./llm" },
		"answer":      func(v *plan.Variant, r *plan.Role) { r.Answer = &plan.Answer{Reasks: 2} },
	} {
		if digest(edit) == base {
			t.Errorf("a changed %s leaves the store entry as it was", name)
		}
	}
	if digest(nil, "t2") == base {
		t.Error("another task leaves the store entry as it was")
	}
	if digest(func(v *plan.Variant, r *plan.Role) { v.Seed = 9; r.Name = "other" }) != base {
		t.Error("the seed or the role's name changed the store entry")
	}
}

// TestCriteriaStore: an entry is read back as written; a corrupt, planted
// or oversized one is an error, never a panic; a text over its bound and a
// store at its entry bound store nothing.
func TestCriteriaStore(t *testing.T) {
	v, role := storeFixture()
	s := storeIn(t.TempDir())
	id := criteriaIdentityOf(v, role, criteriaRequest("env", "t1", "", ""))
	d, _ := id.digest()
	if _, found, err := s.get(d, &id); found || err != nil {
		t.Fatalf("empty store: found %v, %v", found, err)
	}
	if ok, err := s.put(d, &storedCriteria{Identity: id, Text: "Lower wins."}); !ok || err != nil {
		t.Fatalf("put: %v %v", ok, err)
	}
	if text, found, err := s.get(d, &id); !found || err != nil || text != "Lower wins." {
		t.Fatalf("get: %q %v %v", text, found, err)
	}
	other := criteriaIdentityOf(v, role, criteriaRequest("env", "t2", "", ""))
	od, _ := other.digest()
	path := filepath.Join(s.dir, d+".json")
	b, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"not JSON":         []byte("{not json"),
		"empty":            nil,
		"another version":  []byte(strings.Replace(string(b), `"version": 1`, `"version": 7`, 1)),
		"another identity": []byte(strings.Replace(string(b), `"t1"`, `"t2"`, 1)),
		"oversized":        []byte(strings.Repeat(" ", maxStoreEntry+1)),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, found, err := s.get(d, &id); found || err == nil {
			t.Errorf("%s entry: found %v, err %v; want an error", name, found, err)
		}
	}
	// An entry copied under another request's name is not that request's.
	if err := os.WriteFile(filepath.Join(s.dir, od+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.get(od, &other); found || err == nil {
		t.Errorf("an entry under another name: found %v, err %v", found, err)
	}
	if ok, _ := s.put(d, &storedCriteria{Identity: id, Text: strings.Repeat("x", maxStoredCriteria+1)}); ok {
		t.Error("a text over the bound was stored")
	}
	defer func(n int) { maxStoreEntries = n }(maxStoreEntries)
	maxStoreEntries = 1
	third := criteriaIdentityOf(v, role, criteriaRequest("env", "t3", "", ""))
	td, _ := third.digest()
	if ok, err := s.put(td, &storedCriteria{Identity: third, Text: "x"}); ok || err != nil {
		t.Errorf("a full store stored a new entry: %v %v", ok, err)
	}
	if ok, err := s.put(d, &storedCriteria{Identity: id, Text: "Lower wins again."}); !ok || err != nil {
		t.Errorf("a full store refused to replace an entry it holds: %v %v", ok, err)
	}
}

// TestWriteCriteriaDirs: a run's criteria are written as criteria_dir
// files, again without harm, and never over other text.
func TestWriteCriteriaDirs(t *testing.T) {
	out := t.TempDir()
	cs := []TaskCriteria{{Critic: "critic", Env: "e", Task: "t1", Text: "Lower wins."}, {Critic: "critic", Env: "e", Task: "t2", Text: "Faster wins."}}
	files, err := WriteCriteriaDirs(out, cs)
	if err != nil || len(files) != 2 {
		t.Fatalf("%q %v", files, err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "critic", "t1.md")); string(b) != "Lower wins.\n" {
		t.Errorf("t1.md holds %q", b)
	}
	if _, err := WriteCriteriaDirs(out, cs); err != nil {
		t.Errorf("writing the same again: %v", err)
	}
	cs[0].Text = "Higher wins."
	if _, err := WriteCriteriaDirs(out, cs); err == nil || !strings.Contains(err.Error(), "exists with other criteria") {
		t.Errorf("over other text: %v", err)
	}
	if _, err := WriteCriteriaDirs(out, []TaskCriteria{{Critic: "critic", Task: "../x", Text: "y"}}); err == nil {
		t.Error("a task name with a path was written")
	}
	if _, err := WriteCriteriaDirs(t.TempDir(), []TaskCriteria{{Critic: "c", Env: "a", Task: "t", Text: "x"}, {Critic: "c", Env: "b", Task: "t", Text: "y"}}); err == nil {
		t.Error("two environments' tasks of one name with different criteria were written")
	}
}

// FuzzCriteriaStoreEntry: whatever a store entry holds, reading it gives
// its text only when it is the request's whole, valid entry, and never
// panics. It decodes the bytes as get does, without a file: a temporary
// directory and a file per input, and the fuzzer's minimizing (quadratic
// in an input's length) of a long indented seed entry, held it at a few
// hundred executions in 30 s (TestCriteriaStore reads entries through
// files).
func FuzzCriteriaStoreEntry(f *testing.F) {
	// A small identity: the seed's length is what the fuzzer's minimizing
	// costs, and the property does not need a realistic request.
	id := criteriaIdentity{Version: storeVersion, Request: payload.SummarizeRequest{Task: "t"}}
	d, _ := id.digest()
	good, err := json.Marshal(&storedCriteria{Identity: id, Text: "Lower wins."})
	if err != nil {
		f.Fatal(err)
	}
	if text, err := decodeEntry(good, d, &id); err != nil || text != "Lower wins." {
		f.Fatalf("the seed entry reads %q, %v", text, err)
	}
	f.Add(good)
	f.Add([]byte("{not json"))
	f.Add([]byte(`{"identity": {"version": 1}, "text": "x"}`))
	f.Add([]byte(`{"identity": null, "text": ""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		text, err := decodeEntry(b, d, &id)
		if err == nil && (text == "" || len(text) > maxStoredCriteria) {
			t.Fatalf("read %q from an entry", text)
		}
	})
}
