package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// noLLMLoader serves the fake trainer and counts every LLM plugin it is
// asked to start: a replay must start none.
type noLLMLoader struct {
	trainer  *fakeTrainer
	llmOpens atomic.Int64
	tOpens   atomic.Int64
}

func (l *noLLMLoader) Open(_ context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindLLM {
		l.llmOpens.Add(1)
		return nil, fmt.Errorf("%w: the LLM plugin was started in a replay", plugins.ErrPluginStart)
	}
	l.tOpens.Add(1)
	return &inst{t: l.trainer}, nil
}

func replayOf(t *testing.T, p *plan.Plan, dir, id, from string, runs bool, l Loader) (*Result, error) {
	t.Helper()
	return Run(context.Background(), p, Options{ID: id, Dir: dir, Plugins: l, Replay: &Replay{Dir: filepath.Join(dir, from), Runs: runs}})
}

// TestReplayMakesNoLLMCall: a replayed run takes every LLM answer and
// policy update from the earlier run's journal, starts no LLM plugin, and
// ends with the earlier run's figures; real runs are trained again unless
// they are replayed too, and then no trainer runs at all.
func TestReplayMakesNoLLMCall(t *testing.T) {
	dir := t.TempDir()
	orig, err := runPlan(t, lm2lmPlan(), dir, "orig", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if orig.Totals.LLMCalls == 0 || orig.Totals.PolicyUpdates == 0 {
		t.Fatalf("the original made %d LLM calls and %d updates: nothing to replay", orig.Totals.LLMCalls, orig.Totals.PolicyUpdates)
	}
	for _, runs := range []bool{false, true} {
		l := &noLLMLoader{trainer: newFakeTrainer()}
		id := fmt.Sprintf("replay-runs-%t", runs)
		res, err := replayOf(t, lm2lmPlan(), dir, id, "orig", runs, l)
		if err != nil {
			t.Fatalf("replay (runs %t): %v", runs, err)
		}
		if l.llmOpens.Load() != 0 {
			t.Errorf("replay (runs %t) started the LLM plugin", runs)
		}
		if d := cmp.Diff(orig.Totals, res.Totals); d != "" {
			t.Errorf("replay (runs %t) figures differ (-original +replay):\n%s", runs, d)
		}
		if want := orig.Totals.RealRuns; runs && (l.trainer.started() != 0 || l.tOpens.Load() != 0) || !runs && l.trainer.started() != want {
			t.Errorf("replay (runs %t): trainer opened %d times, %d runs started", runs, l.tOpens.Load(), l.trainer.started())
		}
		// The replayed run's journal holds every call again, with its
		// request: it replays in turn.
		if n := len(events(t, dir, id, journal.KindCall)); n != len(events(t, dir, "orig", journal.KindCall)) {
			t.Errorf("replay (runs %t) journaled %d call events, the original %d", runs, n, len(events(t, dir, "orig", journal.KindCall)))
		}
	}
	again, err := replayOf(t, lm2lmPlan(), dir, "replay-of-replay", "replay-runs-true", true, &noLLMLoader{trainer: newFakeTrainer()})
	if err != nil || again.Totals.BestGain != orig.Totals.BestGain {
		t.Errorf("a replay of a replay: %v, best gain %v, want %v", err, again.Totals.BestGain, orig.Totals.BestGain)
	}
}

// TestReplayRefusesAChangedRequest: a spec whose calls ask something else
// is refused at the first such call, naming the call, its role and what
// changed, before the plugin is asked anything.
func TestReplayRefusesAChangedRequest(t *testing.T) {
	dir := t.TempDir()
	if _, err := runPlan(t, lm2lmPlan(), dir, "orig", &testLoader{trainer: newFakeTrainer()}, false); err != nil {
		t.Fatal(err)
	}
	p := lm2lmPlan()
	for _, ro := range p.Variants[0].Roles {
		if ro.Name == "rwm" {
			ro.Model = "another-world-model"
		}
	}
	l := &noLLMLoader{trainer: newFakeTrainer()}
	_, err := replayOf(t, p, dir, "changed", "orig", false, l)
	if err == nil {
		t.Fatal("a replay of a changed spec succeeded")
	}
	for _, want := range []string{"replay of run orig refused at rwm call ", "its request differs from the earlier run's: model: \"\" -> \"another-world-model\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if l.llmOpens.Load() != 0 {
		t.Error("the refused replay started the LLM plugin")
	}
}

// TestReplayRefusesAJournalWithoutRequests: a journal written before
// requests were recorded cannot be matched, and says so.
func TestReplayRefusesAJournalWithoutRequests(t *testing.T) {
	dir := t.TempDir()
	if _, err := runPlan(t, lm2lmPlan(), dir, "orig", &testLoader{trainer: newFakeTrainer()}, false); err != nil {
		t.Fatal(err)
	}
	// An older journal: the same calls, without "req".
	old, err := journal.Open(filepath.Join(dir, "old", JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events(t, dir, "orig", journal.KindCall) {
		var c map[string]json.RawMessage
		if json.Unmarshal(e.Data, &c) != nil {
			t.Fatal("unreadable call record")
		}
		delete(c, "req")
		if err := old.Append(journal.KindCall, e.Key, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = replayOf(t, lm2lmPlan(), dir, "r", "old", false, &noLLMLoader{trainer: newFakeTrainer()})
	if err == nil || !strings.Contains(err.Error(), "run old cannot be replayed: its journal records the answers of its LLM calls but not their requests") {
		t.Errorf("err = %v, want the older journal refused", err)
	}
}

// TestResumedReplayReplays: a resumed replay takes its answers from the
// same earlier run, which it records when it begins, so a resume never
// asks an LLM what the earlier run answered.
func TestResumedReplayReplays(t *testing.T) {
	dir := t.TempDir()
	orig, err := runPlan(t, lm2lmPlan(), dir, "orig", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replayOf(t, lm2lmPlan(), dir, "rp", "orig", true, &noLLMLoader{trainer: newFakeTrainer()}); err != nil {
		t.Fatal(err)
	}
	l := &noLLMLoader{trainer: newFakeTrainer()}
	res, err := Run(context.Background(), nil, Options{ID: "rp", Dir: dir, Plugins: l, Resume: true})
	if err != nil || res.Totals.BestGain != orig.Totals.BestGain || l.llmOpens.Load() != 0 || l.tOpens.Load() != 0 {
		t.Fatalf("resumed replay: %v, best gain %v (want %v), %d LLM and %d trainer starts", err, res.Totals.BestGain, orig.Totals.BestGain, l.llmOpens.Load(), l.tOpens.Load())
	}
	_, err = Run(context.Background(), nil, Options{ID: "rp", Dir: dir, Plugins: l, Resume: true, Replay: &Replay{Dir: filepath.Join(dir, "other")}})
	if err == nil || !strings.Contains(err.Error(), "resume it as it began") {
		t.Errorf("a resume that names another run to replay: %v", err)
	}
}

// TestReplayChecksJournalFigures: a journal's call figures are held to
// the bounds a server's reported usage is held to: a record edited to say
// more tokens than one call of its role can be charged, a negative count
// or more asks again than the role allows is refused, naming the call,
// when it is replayed and when its own run resumes, rather than charged
// ("$100,000,000 spent" against a $1 cap) or counted.
func TestReplayChecksJournalFigures(t *testing.T) {
	priced := func() *plan.Plan {
		p := lm2lmPlan()
		for _, ro := range p.Variants[0].Roles {
			ro.PriceIn, ro.PriceOut = 1, 1
		}
		p.Variants[0].Budget.USD = 1000
		return p
	}
	dir := t.TempDir()
	if _, err := runPlan(t, priced(), dir, "orig", &testLoader{trainer: newFakeTrainer()}, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, field string
		value       float64
		want        string
	}{
		{"tokens out past the bound", "out", 1e15, "tokens in and 1000000000000000 out over 1 ask(s), outside the [0, "},
		{"negative tokens in", "in", -5, "-5 tokens in and "},
		{"asks past the roles", "reasks", 1e12, "asked again 1000000000000 times, and the "},
	} {
		edited := func(id string) {
			j, err := journal.Open(filepath.Join(dir, id, JournalFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range events(t, dir, "orig", journal.KindCall) {
				var rec map[string]any
				if json.Unmarshal(e.Data, &rec) != nil {
					t.Fatal("unreadable call record")
				}
				if rec["role"] != nil {
					rec[c.field] = c.value
				}
				if err := j.Append(journal.KindCall, e.Key, rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
		}
		id := strings.ReplaceAll(c.name, " ", "-")
		edited(id)
		_, err := replayOf(t, priced(), dir, "replay-"+id, id, false, &noLLMLoader{trainer: newFakeTrainer()})
		if err == nil || !strings.Contains(err.Error(), "replay of run "+id+" refused at ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: replay: %v, want it refused with %q", c.name, err, c.want)
		}
		// The same record in a run's own journal stops its resume.
		edited("own-" + id)
		b, err := os.ReadFile(filepath.Join(dir, "orig", "plan.json"))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "own-"+id, "plan.json"), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = runPlan(t, priced(), dir, "own-"+id, &testLoader{trainer: newFakeTrainer()}, true)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the run's journal was edited") {
			t.Errorf("%s: resume: %v, want it refused with %q", c.name, err, c.want)
		}
	}
}
