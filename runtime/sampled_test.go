package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// rawLLM is a served endpoint whose proposer answers in its own words
// (a text that is not the re-encoded proposal) and whose builder rewrites
// every proposal it builds. It records the payload each proposer answer
// was sampled from, by the answer's text.
type rawLLM struct {
	servedLLM
	sent map[string][]byte
}

func (s rawLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	resp, err := s.servedLLM.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	switch req.Role {
	case plugins.RolePropose:
		resp.Text = fmt.Sprintf("  Here is my idea (seed %d):\n%s\n", req.Seed, resp.Payload)
		s.mu.Lock()
		s.sent[resp.Text] = req.Payload
		s.mu.Unlock()
	case plugins.RoleBuild, plugins.RoleImplement:
		var r payload.ImplementResponse
		if err := payload.Decode(resp.Payload, &r); err != nil {
			return nil, err
		}
		r.Proposal.Text = "BUILT BY BUILDER"
		if resp.Payload, err = payload.Encode(r); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// batchReader is an update trainer that keeps every batch's lines.
type batchReader struct {
	fakeUpdater
	batches [][]batchLine
}

func (b *batchReader) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	f, err := os.Open(req.Update.BatchFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []batchLine
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var l batchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	b.mu.Lock()
	b.batches = append(b.batches, lines)
	b.mu.Unlock()
	return b.fakeUpdater.Start(ctx, req)
}

// The update batch holds what the policy sampled: the chat the proposer
// was sent, its answer exactly as the model returned it (never a builder's
// rewrite of the proposal), and the policy that sampled it, which with
// rollout_every = 2 is older than the adapter the update starts from.
func TestUpdateBatchHoldsTheSampledCompletions(t *testing.T) {
	t.Parallel()
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Plugins = append(v.Plugins, &plan.Plugin{Name: "rl", Kind: "trainer"})
	l := v.Loops[0]
	l.ZeroVariance = "keep"
	if l.RolloutEvery != 2 {
		t.Fatalf("the plan refreshes every %d steps; the test needs 2", l.RolloutEvery)
	}
	l.Update = &plan.PolicyUpdate{Trainer: "rl", GPU: "CPU", GPUs: 1, Hours: 0.1, GPUHours: 0.1, USD: 0.1, Adapter: "pol", Updates: plan.Exact(8)}
	up := &batchReader{}
	var mu sync.Mutex
	var loaded, used []string
	llm := rawLLM{servedLLM: servedLLM{mu: &mu, loaded: &loaded, used: &used}, sent: map[string][]byte{}}
	ld := loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
		switch pl.Name {
		case "rl":
			return &inst{t: up}, nil
		case "trainer":
			return &inst{t: newFakeTrainer()}, nil
		}
		return &inst{l: llm}, nil
	})
	if _, err := runPlan(t, p, t.TempDir(), "s", ld, false); err != nil {
		t.Fatal(err)
	}
	if len(up.batches) != 8 {
		t.Fatalf("%d batches, want 8", len(up.batches))
	}
	for i, lines := range up.batches {
		step := i + 1
		// Steps 1 and 2 train on the first rollout, sampled by the base
		// model; steps 3 and 4 on the second, sampled by step 2's adapter.
		want := plugins.SamplePolicy{}
		if first := step - (step-1)%2; first > 1 {
			want = plugins.SamplePolicy{Adapter: fmt.Sprintf("pol-step-%d", first-1), Path: up.jobs[first-2].AdapterDir, Step: first - 1}
		}
		if len(lines) == 0 {
			t.Fatalf("step %d: an empty batch", step)
		}
		for n, line := range lines {
			sent, ok := llm.sent[line.Completion]
			if !ok || strings.Contains(line.Completion, "BUILT BY BUILDER") {
				t.Fatalf("step %d line %d: completion %q is not an answer the proposer returned", step, n, line.Completion)
			}
			chat, err := payload.Chat(plugins.RolePropose, nil, sent)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(chat, line.Prompt); d != "" {
				t.Fatalf("step %d line %d: the prompt is not the chat the proposer was sent (-sent +batch):\n%s", step, n, d)
			}
			got := plugins.SamplePolicy{Adapter: line.Policy.Adapter, Path: line.Policy.AdapterDir, Step: line.Policy.Step}
			if got != want {
				t.Errorf("step %d line %d: sampled by %+v, want %+v", step, n, got, want)
			}
		}
		// The update still continues from the latest adapter.
		if j := up.jobs[i]; step > 1 && j.PreviousAdapter != fmt.Sprintf("pol-step-%d", step-1) {
			t.Errorf("step %d continues from %q, want pol-step-%d", step, j.PreviousAdapter, step-1)
		}
	}
}
