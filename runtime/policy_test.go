package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// barrenLLM is the offline model, except that a proposer call for a state
// of a loop's planned rollout (not a refill, whose state names its step
// and round) proposes nothing: every candidate of the group is infeasible,
// all rewards equal, and dynamic sampling must drop the group.
type barrenLLM struct{ offline.Model }

func (b barrenLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role == plugins.RolePropose {
		var pr payload.ProposeRequest
		if json.Unmarshal(req.Payload, &pr) == nil && strings.HasPrefix(pr.State, "policy/") && !strings.Contains(pr.State, "/x") {
			out, _ := payload.Encode(payload.ProposeResponse{})
			return &plugins.CompleteResponse{Payload: out}, nil
		}
	}
	return b.Model.Complete(ctx, req)
}

type loaderFunc func(ctx context.Context, p *plan.Plugin) (Instance, error)

func (f loaderFunc) Open(ctx context.Context, p *plan.Plugin) (Instance, error) { return f(ctx, p) }

// DAPO's dynamic sampling drops the zero-variance groups of a step and
// samples fresh ones in their place, at most resample_rounds rounds; the
// policy then trains on the refilled groups.
func TestDynamicSamplingRefills(t *testing.T) {
	t.Parallel()
	p := lm2lmPlan()
	l := p.Variants[0].Loops[0]
	l.ResampleRounds = 2
	tr := newFakeTrainer()
	ld := loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
		if pl.Kind == plugins.KindTrainer {
			return &inst{t: tr}, nil
		}
		return &inst{l: barrenLLM{}}, nil
	})
	dir := t.TempDir()
	res, err := runPlan(t, p, dir, "ds", ld, false)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Totals.Measured.Loops["policy"]
	// 8 steps of 2 planned groups each, every one dropped: at least one
	// refill round of 2 groups per step, at most 2.
	if m.Resampled < 16 || m.Resampled > 32 {
		t.Errorf("resampled %d groups, want 16 to 32 (2 dropped per step, at most 2 rounds)", m.Resampled)
	}
	if want := 64 + 4*m.Resampled; m.Candidates != want {
		t.Errorf("candidates %d, want the 64 planned plus 4 per refilled group = %d", m.Candidates, want)
	}
	var dropped, samples int
	for _, e := range events(t, dir, "ds", journal.KindStep) {
		var f StepFigures
		json.Unmarshal(e.Data, &f)
		dropped += f.Dropped
		samples += f.Samples
		if f.Groups < 4 {
			t.Errorf("step %d trained on %d groups; the 2 dropped should have been refilled", f.Step, f.Groups)
		}
	}
	if dropped < 16 || samples == 0 || res.Totals.PolicyUpdates == 0 {
		t.Errorf("dropped %d groups, trained on %d samples in %d updates; want every planned group dropped and the refills trained on", dropped, samples, res.Totals.PolicyUpdates)
	}

	// Without refill the same run drops every group and never updates.
	l.ResampleRounds = 0
	res, err = runPlan(t, p, dir, "none", ld, false)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Totals.Measured.Loops["policy"]; m.Resampled != 0 || m.Candidates != 64 || res.Totals.PolicyUpdates != 0 {
		t.Errorf("without refill: resampled %d, candidates %d, updates %d; want 0, 64, 0", m.Resampled, m.Candidates, res.Totals.PolicyUpdates)
	}
}

// fakeUpdater runs policy updates in process: it reads the batch and
// writes an adapter directory.
type fakeUpdater struct {
	mu    sync.Mutex
	jobs  []*plugins.PolicyJob
	lines []int
	fail  map[int]bool // steps whose update fails
	// limits are the time limits the updates were sent; took, when set,
	// is how long an update says it took (a trainer that ignores its
	// limit), by its request.
	limits []float64
	took   func(*plugins.RunRequest) float64
	secs   map[string]float64
}

func (f *fakeUpdater) Describe(context.Context, *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return &plugins.DescribeResponse{}, nil
}

func (f *fakeUpdater) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	if req.Update == nil {
		return nil, fmt.Errorf("a run on the updater")
	}
	b, err := os.Open(req.Update.BatchFile)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	n := 0
	for sc := bufio.NewScanner(b); sc.Scan(); n++ {
		var line batchLine
		err := json.Unmarshal(sc.Bytes(), &line)
		if err != nil || line.Group == "" || line.Step != req.Update.Step || len(line.Prompt) != 2 || line.Prompt[0].Role != "system" ||
			!strings.HasPrefix(line.Prompt[1].Content, "Input:\n") || line.Completion == "" {
			return nil, fmt.Errorf("batch line %d: %v %+v", n, err, line)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs = append(f.jobs, req.Update)
	f.lines = append(f.lines, n)
	f.limits = append(f.limits, req.TimeLimitSeconds)
	if f.took != nil {
		if f.secs == nil {
			f.secs = map[string]float64{}
		}
		f.secs[req.RunID] = f.took(req)
	}
	if !f.fail[req.Update.Step] {
		if err := os.MkdirAll(req.Update.AdapterDir, 0o755); err != nil {
			return nil, err
		}
		os.WriteFile(filepath.Join(req.Update.AdapterDir, "adapter.bin"), []byte("w"), 0o644)
	}
	return &plugins.RunHandle{RunID: req.RunID, Handle: req.Update.AdapterDir}, nil
}

func (f *fakeUpdater) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	if _, err := os.Stat(h.Handle); err != nil {
		return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusFailed, Reason: "no adapter"}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusFinished, Seconds: f.secs[h.RunID]}, nil
}

func (f *fakeUpdater) Cancel(context.Context, *plugins.RunHandle) error { return nil }

// servedLLM is an endpoint that serves adapters: the offline model answers,
// Update with an adapter returns a state naming it, and every proposer call
// records which adapter it was made with.
type servedLLM struct {
	offline.Model
	mu     *sync.Mutex
	loaded *[]string
	used   *[]string
}

func (s servedLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role == plugins.RolePropose {
		var st struct{ Adapter string }
		json.Unmarshal(req.State, &st)
		s.mu.Lock()
		*s.used = append(*s.used, st.Adapter)
		s.mu.Unlock()
		req.State = nil // the offline model's own policy stays initial
	}
	return s.Model.Complete(ctx, req)
}

func (s servedLLM) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	if req.Adapter == nil {
		return nil, plugins.ErrUnsupported
	}
	if _, err := os.Stat(req.Adapter.Path); err != nil {
		return nil, err
	}
	s.mu.Lock()
	*s.loaded = append(*s.loaded, req.Adapter.Name)
	s.mu.Unlock()
	st, _ := json.Marshal(map[string]string{"adapter": req.Adapter.Name, "path": req.Adapter.Path})
	return &plugins.UpdateResponse{State: st}, nil
}

// A loop with an update block trains through its update trainer: each
// update's cost is reserved before it starts, a failed update leaves the
// policy as it was, the proposer then samples from the new adapter, and
// the dollar cap stops updates as it stops real runs.
func TestUpdateCommand(t *testing.T) {
	t.Parallel()
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Plugins = append(v.Plugins, &plan.Plugin{Name: "rl", Kind: "trainer"})
	l := v.Loops[0]
	l.ZeroVariance = "keep"
	l.Update = &plan.PolicyUpdate{Trainer: "rl", GPU: "CPU", GPUs: 2, Hours: 0.5, GPUHours: 1, USD: 2, Adapter: "pol", Updates: plan.Exact(8)}
	tr, up := newFakeTrainer(), &fakeUpdater{fail: map[int]bool{3: true}}
	var mu sync.Mutex
	var loaded, used []string
	ld := loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
		switch pl.Name {
		case "rl":
			return &inst{t: up}, nil
		case "trainer":
			return &inst{t: tr}, nil
		}
		return &inst{l: servedLLM{mu: &mu, loaded: &loaded, used: &used}}, nil
	})
	dir := t.TempDir()
	res, err := runPlan(t, p, dir, "u", ld, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(up.jobs) != 8 {
		t.Fatalf("%d update jobs, want one per step (8)", len(up.jobs))
	}
	for i, j := range up.jobs {
		if j.Step != i+1 || j.Algorithm != "dapo" || j.ClipHigh != l.ClipHigh || up.lines[i] == 0 {
			t.Errorf("job %d: %+v with %d lines", i, j, up.lines[i])
		}
	}
	// Step 3's update failed: 7 adapters, and step 4 trains from step 2's.
	want := []string{"pol-step-1", "pol-step-2", "pol-step-4", "pol-step-5", "pol-step-6", "pol-step-7", "pol-step-8"}
	if strings.Join(loaded, " ") != strings.Join(want, " ") {
		t.Errorf("adapters loaded %v, want %v", loaded, want)
	}
	if j := up.jobs[3]; j.PreviousAdapter != "pol-step-2" || j.PreviousAdapterDir != up.jobs[1].AdapterDir {
		t.Errorf("step 4 trained from %q in %q, want pol-step-2 in %s", j.PreviousAdapter, j.PreviousAdapterDir, up.jobs[1].AdapterDir)
	}
	if res.Totals.PolicyUpdates != 7 || res.Totals.Measured.Loops["policy"].Updates != 7 {
		t.Errorf("updates %d (measured %d), want 7", res.Totals.PolicyUpdates, res.Totals.Measured.Loops["policy"].Updates)
	}
	// Evaluation samples the last adapter.
	if last := used[len(used)-1]; last != "pol-step-8" {
		t.Errorf("the last proposer call used %q, want pol-step-8", last)
	}
	// 14 real runs of 0.5 GPU-hours and 8 updates of 1 (the failed one's
	// reservation is not released).
	if res.Totals.GPUHours != 7+8 {
		t.Errorf("GPU-hours %v, want 15", res.Totals.GPUHours)
	}

	// A dollar cap that leaves room for the real runs ($14) and LLM calls
	// but two updates only.
	p2 := lm2lmPlan()
	v2 := p2.Variants[0]
	v2.Plugins = v.Plugins
	v2.Loops[0].ZeroVariance = "keep"
	v2.Loops[0].Update = l.Update
	up2 := &fakeUpdater{}
	loaded, used = nil, nil
	ld2 := loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
		switch pl.Name {
		case "rl":
			return &inst{t: up2}, nil
		case "trainer":
			return &inst{t: newFakeTrainer()}, nil
		}
		return &inst{l: servedLLM{mu: &mu, loaded: &loaded, used: &used}}, nil
	})
	v2.Budget.USD = res.Totals.LLMUSD + 14 + 4.5
	res2, err := runPlan(t, p2, dir, "cap", ld2, false)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Totals.USD > v2.Budget.USD+1e-9 {
		t.Errorf("spent %v past the cap %v", res2.Totals.USD, v2.Budget.USD)
	}
	if len(up2.jobs) == 0 || len(up2.jobs) >= 8 {
		t.Errorf("%d updates ran under a cap with room for a few", len(up2.jobs))
	}
}

// A run interrupted during a policy update resumes to the totals of an
// uninterrupted one: updates already made are read back with their
// reservations, and the interrupted one's reservation is counted once.
func TestUpdateCommandResume(t *testing.T) {
	t.Parallel()
	mk := func() *plan.Plan {
		p := lm2lmPlan()
		v := p.Variants[0]
		v.Plugins = append(v.Plugins, &plan.Plugin{Name: "rl", Kind: "trainer"})
		v.Loops[0].ZeroVariance = "keep"
		v.Loops[0].Update = &plan.PolicyUpdate{Trainer: "rl", GPU: "CPU", GPUs: 2, Hours: 0.5, GPUHours: 1, USD: 2, Adapter: "pol", Updates: plan.Exact(8)}
		return p
	}
	var mu sync.Mutex
	loader := func(up plugins.Trainer) Loader {
		var loaded, used []string
		return loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
			switch pl.Name {
			case "rl":
				return &inst{t: up}, nil
			case "trainer":
				return &inst{t: newFakeTrainer()}, nil
			}
			return &inst{l: servedLLM{mu: &mu, loaded: &loaded, used: &used}}, nil
		})
	}
	dir := t.TempDir()
	want, err := runPlan(t, mk(), dir, "ref", loader(&fakeUpdater{}), false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cut := &cancelAt{fakeUpdater: &fakeUpdater{}, step: 3, cancel: cancel}
	if _, err := Run(ctx, mk(), Options{ID: "cut", Dir: dir, Plugins: loader(cut)}); err == nil {
		t.Fatal("the run was not interrupted")
	}
	got, err := runPlan(t, nil, dir, "cut", loader(&fakeUpdater{}), true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Totals.GPUHours != want.Totals.GPUHours || got.Totals.USD != want.Totals.USD || got.Totals.PolicyUpdates != want.Totals.PolicyUpdates {
		t.Errorf("resumed: GPU-hours %v, $%v, %d updates; uninterrupted: %v, $%v, %d",
			got.Totals.GPUHours, got.Totals.USD, got.Totals.PolicyUpdates, want.Totals.GPUHours, want.Totals.USD, want.Totals.PolicyUpdates)
	}
	// The resumed run's batches hold the same completions, read back from
	// the journal for the steps sampled before the interruption.
	for step := range 8 {
		a := completions(t, filepath.Join(dir, "ref", "work", fmt.Sprintf("policy_update_%d", step), "batch.jsonl"))
		b := completions(t, filepath.Join(dir, "cut", "work", fmt.Sprintf("policy_update_%d", step), "batch.jsonl"))
		if len(a) == 0 || strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Errorf("step %d: resumed completions %q, uninterrupted %q", step+1, b, a)
		}
	}
}

// completions are a batch file's completions, in order.
func completions(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var line batchLine
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line.Completion)
	}
	return out
}

// cancelAt interrupts the run while the update of one step is in flight.
type cancelAt struct {
	*fakeUpdater
	step   int
	cancel func()
}

func (c *cancelAt) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	h, err := c.fakeUpdater.Start(ctx, req)
	if req.Update != nil && req.Update.Step == c.step {
		c.cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return h, err
}
