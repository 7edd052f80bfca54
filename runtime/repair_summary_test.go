package runtime

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// summarizingBuilder is a builder (scriptedBuilder) that also answers a
// summarizer: its summary is the added lines of the patch it is shown,
// so a summary says which patch it read.
type summarizingBuilder struct {
	*scriptedBuilder
	mu      sync.Mutex
	patches []string // the patches the summarizer was shown
}

func (s *summarizingBuilder) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role != "summarizer" {
		return s.scriptedBuilder.Complete(ctx, req)
	}
	var in payload.SummarizeRequest
	if err := payload.Decode(req.Payload, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.patches = append(s.patches, in.Proposal.Patch)
	s.mu.Unlock()
	var added []string
	for _, l := range strings.Split(in.Proposal.Patch, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
			added = append(added, strings.TrimPrefix(l, "+"))
		}
	}
	summary := "adds " + strings.Join(added, "; ")
	b, _ := payload.Encode(payload.SummarizeResponse{Summary: summary})
	return &plugins.CompleteResponse{Text: summary, Payload: b, Usage: plugins.Usage{In: 100, Out: 10}}, nil
}

// A candidate repaired after its run failed is summarized again, as the
// whole change its repair's run measured (the seed to the repair's
// commit), under the key its pair reads (SummaryKey); the summary of the
// first attempt, which crashed, stays the first attempt's. Before, the
// only summary was the first attempt's, and the pair of the measured
// program carried it.
func TestRunRepairSummarized(t *testing.T) {
	crashy := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, params("0.5", true))
	fixed := textdiff.Unified("a/params.txt", "b/params.txt", params("0.5", true), params("0.25", false))
	repo := seedRepo(t)
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	b := &summarizingBuilder{scriptedBuilder: &scriptedBuilder{patches: []string{crashy, fixed}}}
	tr := &checkoutTrainer{runs: map[string]*plugins.RunResult{}}
	opts := Options{ID: "run-1", Plugins: LoaderFunc(func(ctx context.Context, p *plan.Plugin) (Instance, error) {
		if p.Kind == plugins.KindTrainer {
			return &inst{t: tr}, nil
		}
		return &inst{l: b}, nil
	})}
	r := sourceServiceOn(t, b, repo, j, 1, nil, opts)
	r.roles["summarizer"] = &plan.Role{Name: "summarizer", Kind: "summarizer", Plugin: "llm", TokensIn: plan.Count{Low: 100, Expected: 100, High: 20000},
		TokensOut: plan.Count{Low: 10, Expected: 10, High: 2000}, Concurrency: 4}
	task := r.tasks.find("tiny", "t0")
	const key = "loop/tiny/t0/0"
	p, ok, err := r.implement("builder", "", key+"/implement", task, plugins.Proposal{ID: "p", Text: "halve the rate"})
	if err != nil || !ok {
		t.Fatalf("build: ok %v, err %v", ok, err)
	}
	// The critic's summary of the first build, as screen makes it.
	var first payload.SummarizeResponse
	if err := r.complete("summarizer", key+"/summarize", payload.SummarizeRequest{Task: task.Name, Proposal: p}, &first); err != nil {
		t.Fatal(err)
	}
	out, err := r.runReal(scope{phase: "loop"}, []realRun{{Key: key, Task: task, Proposal: p, fix: fixerFor("builder", "", key+"/implement", task).summarizing("summarizer")}})
	if err != nil {
		t.Fatal(err)
	}
	o := out[0]
	if o.Repaired == nil || o.Metric != 0.25 || o.repairKey != key+"/repair/1" {
		t.Fatalf("outcome %+v: want the repair measured by run %s/repair/1", o, key)
	}
	if len(b.patches) != 2 {
		t.Fatalf("the summarizer was called %d times, want 2 (the first build, the repair)", len(b.patches))
	}
	whole := gitOut(t, repo, "diff", task.src.base, o.Repaired.Commit)
	if strings.TrimSpace(b.patches[1]) != whole || strings.TrimSpace(o.Repaired.Patch) != whole {
		t.Fatalf("the repair's summary read\n%s\nwant the whole change measured\n%s", b.patches[1], whole)
	}
	// What the journal holds, as an export reads it after the run.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, err = journal.Open(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	got := journaledSummary(t, j, SummaryKey(key, o.repairKey))
	if got != "adds rate = 0.25" {
		t.Fatalf("the measured program's summary is %q, want the repair's", got)
	}
	if !strings.Contains(first.Summary, "crash") || journaledSummary(t, j, SummaryKey(key, key)) != first.Summary {
		t.Fatalf("the first attempt's summary %q changed", first.Summary)
	}
}

// journaledSummary is the summary journaled under key.
func journaledSummary(t *testing.T, j *journal.Journal, key string) string {
	t.Helper()
	d, ok := j.Call(journal.KindCall, key)
	if !ok {
		t.Fatalf("no call %s journaled", key)
	}
	var rec callRecord
	var resp payload.SummarizeResponse
	if err := json.Unmarshal(d, &rec); err != nil {
		t.Fatal(err)
	}
	if err := payload.Decode(rec.Payload, &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Summary
}

// The summary a run's pair reads is its program's: the first build's for
// the candidate's own run (retried or not), its repair's for a repair's.
func TestSummaryKey(t *testing.T) {
	for _, c := range []struct{ cand, run, want string }{
		{"policy/r0/s0/1", "policy/r0/s0/1", "policy/r0/s0/1/summarize"},
		{"policy/r0/s0/1", "policy/r0/s0/1~2", "policy/r0/s0/1/summarize"},
		{"policy/r0/s0/1", "policy/r0/s0/1/repair/2", "policy/r0/s0/1/repair/2/summarize"},
		{"policy/r0/s0/1", "policy/r0/s0/1/repair/2~1", "policy/r0/s0/1/repair/2/summarize"},
		{"e/t/i0/r1/0", "", "e/t/i0/r1/0/summarize"},
	} {
		if got := SummaryKey(c.cand, c.run); got != c.want {
			t.Errorf("SummaryKey(%q, %q) = %q, want %q", c.cand, c.run, got, c.want)
		}
	}
}
