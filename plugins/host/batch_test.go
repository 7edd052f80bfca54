package host

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/plugins"
)

func batchOf(ids ...string) *plugins.BatchRequest {
	req := &plugins.BatchRequest{}
	for i, id := range ids {
		req.Runs = append(req.Runs, &plugins.RunRequest{RunID: id, Env: "e", Task: fmt.Sprintf("t%d", i),
			Proposal: plugins.Proposal{Edits: map[string]string{"lr": "1e-3"}}})
	}
	return req
}

// A trainer binary that serves StartBatch gets the batch as one call.
func TestStartBatchPassthrough(t *testing.T) {
	p, _ := openTest(t, "tp")
	bs, ok := p.Trainer().(plugins.BatchStarter)
	if !ok {
		t.Fatal("the host's trainer is not a plugins.BatchStarter")
	}
	resp, err := bs.StartBatch(context.Background(), batchOf("a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	want := []*plugins.RunHandle{
		{RunID: "a", Handle: "batch:e/t0/1e-3"},
		{RunID: "b", Handle: "batch:e/t1/1e-3"},
		{RunID: "c", Handle: "batch:e/t2/1e-3"},
	}
	if diff := cmp.Diff(want, resp.Handles); diff != "" {
		t.Errorf("handles (-want +got):\n%s", diff)
	}
	// The handles are the plugin's own: Wait accepts them.
	r, err := p.Trainer().Wait(context.Background(), resp.Handles[1])
	if err != nil || r.Logs != "batch:e/t1/1e-3" {
		t.Fatalf("Wait: %+v, %v", r, err)
	}
}

// A crash mid-batch is not retried: the plugin may have started some runs,
// and only the runtime's journal can tell.
func TestStartBatchCrash(t *testing.T) {
	p, _ := openTest(t, "tp")
	bs := p.Trainer().(plugins.BatchStarter)
	_, err := bs.StartBatch(context.Background(), batchOf("a", "crash", "c"))
	var ce *CrashError
	if !errors.Is(err, ErrPluginCrashed) || !errors.As(err, &ce) || ce.Call != "StartBatch" {
		t.Fatalf("err = %v, want a CrashError of StartBatch", err)
	}
	// The host does not restart it: the next call reports the crash too.
	if _, err := bs.StartBatch(context.Background(), batchOf("a", "c")); !errors.Is(err, ErrPluginCrashed) {
		t.Fatalf("after the crash: %v, want ErrPluginCrashed", err)
	}
}

// A trainer binary without StartBatch (the example echo trainer) answers
// Unimplemented; the host starts the runs one by one, in order, and gives
// back the same handles Start gives.
func TestStartBatchFallback(t *testing.T) {
	p, _ := openTest(t, "echo")
	tr := p.Trainer()
	bs := tr.(plugins.BatchStarter)
	ctx := context.Background()
	req := batchOf("a", "b", "c")
	req.Runs[1].Proposal.Edits = map[string]string{"lr": "1e-4"}
	req.Runs[2].Proposal.Edits = map[string]string{"nope": "1"}
	for round := 0; round < 2; round++ { // the second batch skips the probe
		resp, err := bs.StartBatch(ctx, req)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(resp.Handles) != len(req.Runs) {
			t.Fatalf("round %d: %d handles for %d runs", round, len(resp.Handles), len(req.Runs))
		}
		for i, run := range req.Runs {
			h, err := tr.Start(ctx, run)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(h, resp.Handles[i]); diff != "" {
				t.Errorf("round %d run %s: batch handle differs from Start's (-start +batch):\n%s", round, run.RunID, diff)
			}
		}
	}
	if !p.noBatch.Load() {
		t.Error("the host did not remember that the plugin has no StartBatch")
	}
	r, err := tr.Wait(ctx, &plugins.RunHandle{RunID: "c", Handle: "infeasible:x"})
	if err != nil || r.Status != plugins.StatusInfeasible {
		t.Fatalf("Wait: %+v %v", r, err)
	}
}

// In the fallback a run that fails to start stops the batch; the response
// still names the runs that did start, so none is lost.
func TestStartBatchFallbackPartial(t *testing.T) {
	p, _ := openTest(t, "tp")
	p.noBatch.Store(true) // as if the binary had no StartBatch
	bs := p.Trainer().(plugins.BatchStarter)
	resp, err := bs.StartBatch(context.Background(), batchOf("a", "crash", "c"))
	if !errors.Is(err, ErrPluginCrashed) {
		t.Fatalf("err = %v, want ErrPluginCrashed", err)
	}
	if resp == nil || len(resp.Handles) != 3 || resp.Handles[0] == nil || resp.Handles[0].Handle != "e/t0/1e-3" ||
		resp.Handles[1] != nil || resp.Handles[2] != nil {
		t.Fatalf("partial response %+v", resp)
	}
}
