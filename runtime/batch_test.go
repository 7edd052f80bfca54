package runtime

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// batchTrainer is the fake trainer with StartBatch. It records every batch
// and every single Start, and counts how often each run id was asked to
// start (a trainer must see a run id again only when the runtime could not
// know whether it started).
type batchTrainer struct {
	*fakeTrainer
	mu      sync.Mutex
	batches [][]string
	singles []string
	asked   map[string]int
	// onBatch, when set, runs before the n-th batch (from 1) starts
	// anything; an error it returns is StartBatch's answer. after runs once
	// the batch's runs have started; an error it returns is returned with
	// the handles of the first keep runs.
	onBatch func(n int) error
	after   func(n int) (keep int, err error)
}

func newBatchTrainer(ft *fakeTrainer) *batchTrainer {
	return &batchTrainer{fakeTrainer: ft, asked: map[string]int{}}
}

var _ plugins.BatchStarter = (*batchTrainer)(nil)

func (b *batchTrainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	b.mu.Lock()
	b.singles = append(b.singles, req.RunID)
	b.asked[req.RunID]++
	b.mu.Unlock()
	return b.fakeTrainer.Start(ctx, req)
}

func (b *batchTrainer) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	b.mu.Lock()
	var ids []string
	for _, r := range req.Runs {
		ids = append(ids, r.RunID)
	}
	b.batches = append(b.batches, ids)
	n := len(b.batches)
	b.mu.Unlock()
	if b.onBatch != nil {
		if err := b.onBatch(n); err != nil {
			return nil, err
		}
	}
	out := &plugins.BatchResponse{}
	for _, r := range req.Runs {
		b.mu.Lock()
		b.asked[r.RunID]++
		b.mu.Unlock()
		h, err := b.fakeTrainer.Start(ctx, r)
		if err != nil {
			return nil, err
		}
		out.Handles = append(out.Handles, h)
	}
	if b.after != nil {
		if keep, err := b.after(n); err != nil {
			for i := keep; i < len(out.Handles); i++ {
				out.Handles[i] = nil
			}
			return out, err
		}
	}
	return out, nil
}

// batchLoader serves the batch trainer and the offline LLM in process.
type batchLoader struct {
	testLoader
	bt *batchTrainer
}

func (l *batchLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindTrainer {
		return &inst{t: l.bt}, nil
	}
	return l.testLoader.Open(ctx, p)
}

// slurmLM2LM is the mini LM2LM plan on a cluster executor, where runs go
// out as batches.
func slurmLM2LM() *plan.Plan {
	p := lm2lmPlan()
	p.Variants[0].Executor = plan.Executor{Kind: "slurm", Concurrency: 2, Slurm: map[string]any{"array": true}}
	return p
}

// reservedWithPrefix lists the journaled run keys with a prefix.
func reservedWithPrefix(t *testing.T, dir, id, prefix string) []string {
	t.Helper()
	var out []string
	for _, e := range events(t, dir, id, journal.KindReserve) {
		if strings.HasPrefix(e.Key, prefix) {
			out = append(out, e.Key)
		}
	}
	sort.Strings(out)
	return out
}

func sorted(l []string) []string {
	c := append([]string(nil), l...)
	sort.Strings(c)
	return c
}

// Each phase's independent runs go out as one batch, and a run of a batch
// is never also started on its own; the figures equal a local run's.
func TestPhasesStartAsBatches(t *testing.T) {
	dir := t.TempDir()
	local, err := runPlan(t, lm2lmPlan(), dir, "local", &testLoader{trainer: newFakeTrainer()}, false)
	if err != nil {
		t.Fatal(err)
	}
	bt := newBatchTrainer(newFakeTrainer())
	res, err := runPlan(t, slurmLM2LM(), dir, "slurm", &batchLoader{bt: bt}, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(local.Totals, res.Totals); d != "" {
		t.Errorf("batched totals differ from one-by-one (-local +batched):\n%s", d)
	}
	if len(bt.singles) != 0 {
		t.Errorf("runs started one by one: %v", bt.singles)
	}
	// seed records, two calibration rounds, evaluation: one batch each.
	prefixes := []string{"seed/", "calibration/0/", "calibration/1/", "eval"}
	if len(bt.batches) != len(prefixes) {
		t.Fatalf("%d batches, want %d: %v", len(bt.batches), len(prefixes), bt.batches)
	}
	for i, pre := range prefixes {
		want := reservedWithPrefix(t, dir, "slurm", pre)
		if len(want) < 2 {
			t.Fatalf("phase %s reserved %d runs; the test needs a batch", pre, len(want))
		}
		if d := cmp.Diff(want, sorted(bt.batches[i])); d != "" {
			t.Errorf("batch %d is not phase %s's runs (-reserved +batch):\n%s", i+1, pre, d)
		}
	}
	// Every run's handle is journaled.
	started := map[string]bool{}
	for _, e := range events(t, dir, "slurm", journal.KindStarted) {
		started[e.Key] = true
	}
	for _, e := range events(t, dir, "slurm", journal.KindReserve) {
		if !started[e.Key] {
			t.Errorf("run %s has no journaled handle", e.Key)
		}
	}
	for id, n := range bt.asked {
		if n != 1 {
			t.Errorf("run %s was asked to start %d times", id, n)
		}
	}
}

// An interruption after a calibration round's runs are reserved but before
// the batch starts them: resume starts a batch of exactly those runs, and
// no run is lost or started twice.
func TestBatchResumeBetweenReserveAndStart(t *testing.T) {
	dir := t.TempDir()
	want, err := runPlan(t, slurmLM2LM(), dir, "ref", &batchLoader{bt: newBatchTrainer(newFakeTrainer())}, false)
	if err != nil {
		t.Fatal(err)
	}
	ft := newFakeTrainer()
	bt := newBatchTrainer(ft)
	ctx, cancel := context.WithCancel(context.Background())
	bt.onBatch = func(n int) error {
		if n == 2 { // the first calibration round
			cancel()
			return ctx.Err()
		}
		return nil
	}
	if _, err := Run(ctx, slurmLM2LM(), Options{ID: "cut", Dir: dir, Plugins: &batchLoader{bt: bt}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("run not interrupted: %v", err)
	}
	calib := reservedWithPrefix(t, dir, "cut", "calibration/0/")
	if len(calib) < 2 {
		t.Fatalf("the interrupted run reserved %d calibration runs", len(calib))
	}
	for _, e := range events(t, dir, "cut", journal.KindStarted) {
		if strings.HasPrefix(e.Key, "calibration/") {
			t.Fatalf("run %s has a handle: the interruption came too late", e.Key)
		}
	}

	bt2 := newBatchTrainer(ft) // a new process; the trainer's runs live on
	got, err := runPlan(t, nil, dir, "cut", &batchLoader{bt: bt2}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if d := cmp.Diff(want.Totals, got.Totals); d != "" {
		t.Errorf("resumed totals differ (-uninterrupted +resumed):\n%s", d)
	}
	if len(bt2.batches) == 0 || !cmp.Equal(sorted(bt2.batches[0]), calib) {
		t.Fatalf("first batch after resume is %v, want the reserved calibration runs %v", bt2.batches, calib)
	}
	if len(bt2.singles) != 0 {
		t.Errorf("runs started one by one after resume: %v", bt2.singles)
	}
	total := map[string]int{}
	for _, m := range []map[string]int{bt.asked, bt2.asked} {
		for id, n := range m {
			total[id] += n
		}
	}
	reserved := events(t, dir, "cut", journal.KindReserve)
	if len(total) != len(reserved) {
		t.Errorf("%d runs were started, %d reserved", len(total), len(reserved))
	}
	for id, n := range total {
		if n != 1 {
			t.Errorf("run %s was asked to start %d times", id, n)
		}
	}
	if d := ft.doubleStarts(); len(d) > 0 {
		t.Errorf("runs started twice: %v", d)
	}
}

// The trainer submitted the batch but the process was interrupted before
// the handles reached the journal: resume sends the batch again, the
// trainer answers with the runs it already has, and none runs twice.
func TestBatchResumeAfterStartBeforeJournal(t *testing.T) {
	dir := t.TempDir()
	want, err := runPlan(t, slurmLM2LM(), dir, "ref", &batchLoader{bt: newBatchTrainer(newFakeTrainer())}, false)
	if err != nil {
		t.Fatal(err)
	}
	ft := newFakeTrainer()
	bt := newBatchTrainer(ft)
	ctx, cancel := context.WithCancel(context.Background())
	bt.after = func(n int) (int, error) {
		if n == 3 { // the second calibration round
			cancel()
			return 0, ctx.Err()
		}
		return 0, nil
	}
	if _, err := Run(ctx, slurmLM2LM(), Options{ID: "cut", Dir: dir, Plugins: &batchLoader{bt: bt}}); err == nil {
		t.Fatal("run not interrupted")
	}
	bt2 := newBatchTrainer(ft)
	got, err := runPlan(t, nil, dir, "cut", &batchLoader{bt: bt2}, true)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if d := cmp.Diff(want.Totals, got.Totals); d != "" {
		t.Errorf("resumed totals differ (-uninterrupted +resumed):\n%s", d)
	}
	if d := ft.doubleStarts(); len(d) > 0 {
		t.Errorf("runs started twice: %v", d)
	}
	if n, w := ft.started(), len(events(t, dir, "cut", journal.KindReserve)); n != w {
		t.Errorf("the trainer ran %d runs, the journal reserved %d", n, w)
	}
}

// A batch that fails part way (a plugin crash after some runs started)
// journals the handles it got; the retry, on a restarted plugin, carries
// only the runs still without a handle.
func TestBatchPartialFailureRetriesTheRest(t *testing.T) {
	dir := t.TempDir()
	bt := newBatchTrainer(newFakeTrainer())
	bt.after = func(n int) (int, error) {
		if n == 1 {
			return 2, fmt.Errorf("plugin %q crashed during StartBatch: connection closed", "trainer")
		}
		return 0, nil
	}
	if _, err := runPlan(t, slurmLM2LM(), dir, "p", &batchLoader{bt: bt}, false); err != nil {
		t.Fatal(err)
	}
	if len(bt.batches) < 2 {
		t.Fatalf("batches %v", bt.batches)
	}
	first, retry := bt.batches[0], bt.batches[1]
	if d := cmp.Diff(first[2:], retry); d != "" {
		t.Errorf("the retry is not the runs without a handle (-want +got):\n%s", d)
	}
	handles := map[string]int{}
	for _, e := range events(t, dir, "p", journal.KindStarted) {
		handles[e.Key]++
	}
	for _, k := range first {
		if handles[k] != 1 {
			t.Errorf("run %s has %d journaled handles", k, handles[k])
		}
	}
}
