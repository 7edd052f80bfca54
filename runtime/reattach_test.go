package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"

	"github.com/google/go-cmp/cmp"
)

// forgetfulTrainer is a trainer process started after a crash: it knows
// only the runs it started itself, and a handle of any other is
// ErrUnknownRun.
type forgetfulTrainer struct{ *fakeTrainer }

func (f forgetfulTrainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	f.mu.Lock()
	_, ok := f.runs[h.RunID]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("run %s: %w", h.RunID, plugins.ErrUnknownRun)
	}
	return f.fakeTrainer.Wait(ctx, h)
}

type trainerLoader struct{ t plugins.Trainer }

func (l trainerLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindTrainer {
		return &inst{t: l.t}, nil
	}
	return (&testLoader{}).Open(ctx, p)
}

// A run the trainer lost (its process died with the run in flight) is
// started again on resume, and only such a run: the re-execution is
// journaled before the second Start and status counts it; runs that had
// a result are not touched, and the totals are the uninterrupted run's.
func TestResumeCountsReExecutions(t *testing.T) {
	dir := t.TempDir()
	want, err := runPlan(t, lm2lmPlan(), dir, "ref", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	tr := newFakeTrainer()
	ctx, cancel := context.WithCancel(context.Background())
	tr.onStart = func(n int) {
		if n == 8 {
			cancel()
		}
	}
	if _, err := Run(ctx, lm2lmPlan(), Options{ID: "cut", Dir: dir, Plugins: &testLoader{trainer: tr}}); err == nil {
		t.Fatal("run not interrupted")
	}
	var lost, done []string
	for _, r := range journalRuns(t, dir, "cut") {
		switch {
		case r.Result != nil:
			done = append(done, r.Key)
		case r.Handle != nil:
			lost = append(lost, r.Key)
		}
	}
	if len(lost) == 0 {
		t.Fatal("the cut left no started run without a result")
	}
	fresh := forgetfulTrainer{newFakeTrainer()}
	got, err := runPlan(t, nil, dir, "cut", trainerLoader{fresh}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if d := cmp.Diff(want.Totals, got.Totals); d != "" {
		t.Errorf("resumed totals differ (-uninterrupted +resumed):\n%s", d)
	}
	for _, k := range done {
		if fresh.starts[k] > 0 {
			t.Errorf("run %s had a result before the resume and was started again", k)
		}
	}
	reruns := events(t, dir, "cut", journal.KindRerun)
	st, err := ReadStatus(dir, "cut")
	if err != nil {
		t.Fatal(err)
	}
	if st.ReExecutions != len(lost) || len(reruns) != len(lost) {
		t.Errorf("status counts %d re-executions and the journal %d; the cut left %d runs started and lost: %v", st.ReExecutions, len(reruns), len(lost), lost)
	}
}

func journalRuns(t *testing.T, dir, id string) []journal.Run {
	t.Helper()
	j, err := journal.OpenReadOnly(filepath.Join(dir, id, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	return j.Runs()
}

// handleChecker is a trainer that, when first asked to Wait on a run,
// reads the journal on disk (as a resume after a crash would) and notes a
// run whose handle is not there yet.
type handleChecker struct {
	*fakeTrainer
	path    string
	cmu     sync.Mutex
	checked map[string]bool
	missing []string
}

func (c *handleChecker) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	c.cmu.Lock()
	if !c.checked[h.RunID] {
		c.checked[h.RunID] = true
		j, err := journal.OpenReadOnly(c.path)
		if err != nil {
			c.cmu.Unlock()
			return nil, err
		}
		if r, _ := j.Run(h.RunID); r.Handle == nil {
			c.missing = append(c.missing, h.RunID)
		}
		j.Close()
	}
	c.cmu.Unlock()
	return c.fakeTrainer.Wait(ctx, h)
}

// A run counts as started only once its handle is durable: whenever the
// runtime waits on a run, a crash at that moment leaves the handle in the
// journal, so a resume re-attaches to the run instead of starting it.
func TestHandleIsDurableBeforeWait(t *testing.T) {
	dir := t.TempDir()
	c := &handleChecker{fakeTrainer: newFakeTrainer(), path: filepath.Join(dir, "h", JournalFile), checked: map[string]bool{}}
	if _, err := runPlan(t, lm2lmPlan(), dir, "h", trainerLoader{c}, false); err != nil {
		t.Fatal(err)
	}
	if len(c.checked) == 0 {
		t.Fatal("no run was waited on")
	}
	if len(c.missing) > 0 {
		t.Errorf("%d of %d runs were waited on before their handle was on disk: %v", len(c.missing), len(c.checked), c.missing)
	}
}
