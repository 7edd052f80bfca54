package contract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/features/runcompare"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
)

const understandSpec = "role \"understand\" {\n  kind        = \"summarizer\"\n  llm         = plugin.offline\n  concurrency = 4\n  seconds     = 0.001\n  tokens {\n    in  = 300\n    out = 200\n  }\n  price {\n    in  = 0\n    out = 0\n  }\n%PROMPT%}\n\nrole \"critic\" {\n  prompt {\n    criteria_role = role.understand\n  }\n"

// criteriaRun runs p as run id in the runs directory dir with an offline
// model that keeps what it was asked, and checks every count against the
// estimate.
func criteriaRun(t *testing.T, p *plan.Plan, dir, id string) (*runtime.Result, sentLLM) {
	t.Helper()
	var critics []string
	llm := sentLLM{mu: &sync.Mutex{}, criteria: map[string]string{}, critics: &critics}
	l := runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		if pl.Source == "builtin:offline" {
			return inst{l: llm}, nil
		}
		return loader().Open(ctx, pl)
	})
	res, err := runtime.Run(context.Background(), p, runtime.Options{ID: id, Dir: dir, Plugins: l})
	if err != nil || res.State != runtime.StateFinished {
		t.Fatalf("run %s: %v", id, err)
	}
	for _, row := range runcompare.Rows(p, p.Variants[0].Name, &res.Totals) {
		if !row.Within && !strings.HasSuffix(row.Figure, "routed_share") {
			t.Errorf("run %s: %s = %g, outside the estimate's [%g, %g]", id, row.Figure, row.Measured, row.Low, row.High)
		}
	}
	return res, llm
}

func understandCalls(res *runtime.Result) int {
	if r := res.Totals.Measured.Roles["understand"]; r != nil {
		return r.Calls
	}
	return 0
}

// TestCriteriaReusedAcrossRuns: a second run in the same runs directory
// takes the criteria the first generated from the store, with no call, and
// its critics read the same text; the journals say which was generated and
// which reused. A changed criteria prompt asks again; a corrupt store entry
// is asked again and replaced, the run unharmed.
func TestCriteriaReusedAcrossRuns(t *testing.T) {
	base := filepath.Join(specsDir(t), "quickstart-critic.hcl")
	role := func(prompt string) [2]string {
		return [2]string{"role \"critic\" {\n", strings.Replace(understandSpec, "%PROMPT%", prompt, 1)}
	}
	p, ds := compile(t, writeVariant(t, base, role("")))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	dir := t.TempDir()
	first, llm1 := criteriaRun(t, p, dir, "first")
	if n := understandCalls(first); n != 2 || len(llm1.criteria) != 2 {
		t.Fatalf("first run: %d understand calls (%q), want one per train task (2)", n, llm1.criteria)
	}
	second, llm2 := criteriaRun(t, p, dir, "second")
	if n := understandCalls(second); n != 0 || len(llm2.criteria) != 0 {
		t.Errorf("second run: %d understand calls, want 0: the first run's criteria are stored", n)
	}
	for task, c := range llm1.criteria {
		if !strings.Contains(strings.Join(*llm2.critics, "\n"), c) {
			t.Errorf("second run: task %s's stored criteria %q reached no critic call", task, c)
		}
	}
	replayReused(t, p, dir, second, llm1.criteria)
	resumeReused(t, p, dir, int64(second.Totals.LLMCalls)-3, llm1.criteria)
	for id, from := range map[string]string{"first": "generated", "second": "reused"} {
		cs, err := runtime.RunCriteria(dir, id)
		if err != nil || len(cs) != 2 {
			t.Fatalf("run %s: criteria %+v, %v", id, cs, err)
		}
		for _, c := range cs {
			if c.From != from || c.Text != llm1.criteria[c.Task] {
				t.Errorf("run %s: task %s's criteria %s %q, want %s %q", id, c.Task, c.From, c.Text, from, llm1.criteria[c.Task])
			}
		}
	}

	// Another prompt of the criteria role is another request.
	changed, ds := compile(t, writeVariant(t, base, role("  prompt {\n    system = \"Name the task's criteria. Answer with a JSON object {\\\"summary\\\": string}.\"\n  }\n")))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if res, _ := criteriaRun(t, changed, dir, "changed"); understandCalls(res) != 2 {
		t.Errorf("a changed criteria prompt: %d understand calls, want 2", understandCalls(res))
	}

	// A corrupt entry is asked again, and the new answer replaces it.
	ents, err := filepath.Glob(filepath.Join(dir, runtime.CriteriaStoreDir, "*.json"))
	if err != nil || len(ents) != 4 {
		t.Fatalf("store entries %q (%v), want 4: two tasks under two prompts", ents, err)
	}
	for i, e := range ents {
		bad := []byte("{not json")
		if i%2 == 1 {
			bad = []byte(`{"identity": {"version": 1}, "text": "planted"}`)
		}
		if err := os.WriteFile(e, bad, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res, _ := criteriaRun(t, p, dir, "corrupt"); understandCalls(res) != 2 {
		t.Errorf("corrupt store entries: %d understand calls, want 2", understandCalls(res))
	}
	if res, _ := criteriaRun(t, p, dir, "mended"); understandCalls(res) != 0 {
		t.Errorf("after the corrupt entries were replaced: %d understand calls, want 0", understandCalls(res))
	}
}

// resumeReused stops a run that reused the store's criteria at LLM call
// at, spoils the store, and resumes the run: it reads its criteria from
// its journal, asks the criteria role nothing, and its critics read the
// text it reused.
func resumeReused(t *testing.T, p *plan.Plan, dir string, at int64, want map[string]string) {
	t.Helper()
	runCut(t, p, runtime.Options{ID: "cut", Dir: dir}, at)
	if cs, err := runtime.RunCriteria(dir, "cut"); err != nil || len(cs) != 2 {
		t.Fatalf("cut at call %d: criteria %+v (%v), want both tasks' reused before the cut", at, cs, err)
	}
	ents, _ := filepath.Glob(filepath.Join(dir, runtime.CriteriaStoreDir, "*.json"))
	kept := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		kept[e] = b
		if err := os.WriteFile(e, []byte("{spoilt"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var critics []string
	llm := sentLLM{mu: &sync.Mutex{}, criteria: map[string]string{}, critics: &critics}
	l := runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		if pl.Source == "builtin:offline" {
			return inst{l: llm}, nil
		}
		return loader().Open(ctx, pl)
	})
	res, err := runtime.Run(context.Background(), nil, runtime.Options{ID: "cut", Dir: dir, Plugins: l, Resume: true})
	if err != nil || res.State != runtime.StateFinished {
		t.Fatalf("resume: %v %+v", err, res)
	}
	if n := understandCalls(res); n != 0 || len(llm.criteria) != 0 {
		t.Errorf("resumed run: %d understand calls (%q), want 0: its journal holds the criteria it reused", n, llm.criteria)
	}
	cs, err := runtime.RunCriteria(dir, "cut")
	if err != nil || len(cs) != 2 {
		t.Fatalf("resumed run: criteria %+v, %v", cs, err)
	}
	for _, c := range cs {
		if c.From != "reused" || c.Text != want[c.Task] {
			t.Errorf("resumed run: task %s's criteria %s %q, want reused %q", c.Task, c.From, c.Text, want[c.Task])
		}
	}
	if len(critics) == 0 {
		t.Error("the resumed run made no critic call")
	}
	for e, b := range kept {
		if err := os.WriteFile(e, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// replayReused replays run second, which reused the store's criteria: the
// replay takes them from its journal, with every other answer, and starts
// no LLM.
func replayReused(t *testing.T, p *plan.Plan, dir string, second *runtime.Result, want map[string]string) {
	t.Helper()
	noLLM := runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		if pl.Kind == plugins.KindLLM {
			return nil, fmt.Errorf("%w: the LLM plugin was started in a replay", plugins.ErrPluginStart)
		}
		return loader().Open(ctx, pl)
	})
	again, err := runtime.Run(context.Background(), p, runtime.Options{ID: "replayed", Dir: dir, Plugins: noLLM, Replay: &runtime.Replay{Dir: filepath.Join(dir, "second"), Runs: true}})
	if err != nil || again.State != runtime.StateFinished || again.Totals.LLMCalls != second.Totals.LLMCalls {
		t.Fatalf("replay of the run that reused the criteria: %v %+v", err, again)
	}
	if cs, err := runtime.RunCriteria(dir, "replayed"); err != nil || len(cs) != 2 || cs[0].From != "reused" || cs[0].Text != want[cs[0].Task] {
		t.Errorf("replay: criteria %+v, %v; want the replayed run's, reused", cs, err)
	}
}
