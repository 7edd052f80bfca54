package runtime

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
)

// slowLLM answers like the offline model, slowly, and reports the usage a
// well-behaved API reports for a call: the tokens the role declares. It
// counts the calls in flight at once.
type slowLLM struct {
	in, out  int
	inFlight atomic.Int64
	most     atomic.Int64
	calls    atomic.Int64
}

func (s *slowLLM) Trainer() plugins.Trainer     { return nil }
func (s *slowLLM) Benchmark() plugins.Benchmark { return nil }
func (s *slowLLM) Close() error                 { return nil }
func (s *slowLLM) LLM() plugins.LLM             { return s }
func (s *slowLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	s.calls.Add(1)
	time.Sleep(5 * time.Millisecond)
	resp, err := offline.Model{}.Complete(ctx, req)
	if resp != nil {
		resp.Usage = plugins.Usage{In: s.in, Out: s.out}
	}
	return resp, err
}
func (s *slowLLM) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return offline.Model{}.Update(ctx, req)
}

type llmLoader struct {
	llm     *slowLLM
	trainer *fakeTrainer
}

func (l llmLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	if p.Kind == plugins.KindLLM {
		return l.llm, nil
	}
	return &inst{t: l.trainer}, nil
}

// The dollar cap holds for LLM calls in flight together: each call holds
// its worst-case dollars before it is made, so eight calls at once cannot
// all pass a check that only looks at what was spent.
func TestDollarCapHoldsForConcurrentCalls(t *testing.T) {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Prices = map[string]float64{"CPU": 0} // only LLM calls cost
	for _, r := range v.Roles {
		r.Concurrency, r.TokensIn, r.TokensOut, r.PriceIn, r.PriceOut = 8, plan.Exact(1000), plan.Exact(100), 10, 100
	}
	// One call costs (1000 x 10 + 100 x 100) / 1e6 = $0.02; the cap buys 10.
	v.Budget = plan.Budget{USD: 0.2}
	llm := &slowLLM{in: 1000, out: 100}
	res, err := Run(context.Background(), p, Options{ID: "usd", Dir: t.TempDir(), Plugins: llmLoader{llm: llm, trainer: newFakeTrainer()}})
	if err != nil && !errors.Is(err, ErrBudget) {
		t.Fatalf("run: %v", err)
	}
	if res == nil {
		t.Fatal("no result")
	}
	if llm.most.Load() < 2 {
		t.Fatalf("at most %d calls were in flight; the test needs concurrent calls", llm.most.Load())
	}
	if res.Totals.USD > 0.2+1e-9 {
		t.Errorf("spent $%v, over the $0.20 cap (%d calls made)", res.Totals.USD, llm.calls.Load())
	}
	if got := llm.calls.Load(); got != 10 {
		t.Errorf("%d calls made; the cap pays for exactly 10", got)
	}
	// The run says where the cap stopped it, also in its status.
	if !strings.Contains(res.Reason, "budget cap") {
		t.Errorf("reason %q does not say a cap stopped the run", res.Reason)
	}
	if st, err := ReadStatus(filepath.Dir(res.Dir), "usd"); err != nil || !strings.Contains(st.CapStop, "budget cap") {
		t.Errorf("status: %v, stopped_at_cap %q", err, st.CapStop)
	}
}

// failingLoader cannot start one plugin.
type failingLoader struct {
	fail string
	base Loader
}

func (l failingLoader) Open(ctx context.Context, p *plan.Plugin) (Instance, error) {
	if p.Name == l.fail {
		return nil, plugins.WithKind(plugins.ErrPluginStart, plugins.WithKind(plugins.ErrChecksum, fmt.Errorf("plugin %s: binary checksum sha256:aa does not match the lock's sha256:bb", p.Name)))
	}
	return l.base.Open(ctx, p)
}

// A plugin that cannot start (here its binary fails its checksum) stops
// the run before anything is reserved, with a failed state and the reason,
// on a fresh run and on a resume.
func TestPluginThatCannotStartStopsTheRun(t *testing.T) {
	for _, name := range []string{"trainer", "llm"} {
		dir := t.TempDir()
		tr := newFakeTrainer()
		res, err := Run(context.Background(), lm2lmPlan(), Options{ID: "x", Dir: dir, Plugins: failingLoader{fail: name, base: &testLoader{trainer: tr}}})
		if err == nil || !errors.Is(err, plugins.ErrPluginStart) {
			t.Fatalf("%s: run error %v, want one that says the plugin cannot start", name, err)
		}
		if res.State != StateFailed || res.Totals.RealRuns != 0 || res.Totals.LLMCalls != 0 {
			t.Errorf("%s: state %s, %d real runs, %d LLM calls; want failed with nothing spent", name, res.State, res.Totals.RealRuns, res.Totals.LLMCalls)
		}
		if n := len(tr.starts); n != 0 {
			t.Errorf("%s: the trainer started %d runs", name, n)
		}
	}
	// On resume: the first run was interrupted after some runs; the
	// plugin binary then fails its checksum.
	dir := t.TempDir()
	tr := newFakeTrainer()
	ctx, cancel := context.WithCancel(context.Background())
	tr.onStart = func(n int) {
		if n == 3 {
			cancel()
		}
	}
	if _, err := Run(ctx, lm2lmPlan(), Options{ID: "r", Dir: dir, Plugins: &testLoader{trainer: tr}}); err == nil {
		t.Fatal("the run was not interrupted")
	}
	before := len(events(t, dir, "r", "reserve"))
	res, err := Run(context.Background(), nil, Options{ID: "r", Dir: dir, Resume: true, Plugins: failingLoader{fail: "trainer", base: &testLoader{trainer: newFakeTrainer()}}})
	if err == nil || res.State != StateFailed {
		t.Fatalf("resume: %v, state %v; want failed", err, res.State)
	}
	if after := len(events(t, dir, "r", "reserve")); after != before {
		t.Errorf("the failed resume reserved %d more runs", after-before)
	}
}
