package runtime

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// checkoutTrainer runs the program a request names, as the command
// trainer would: it reads params.txt at the request's commit and fails
// with an error in the program's code (a traceback on stderr) when the
// file holds a crash line, else measures the rate as the metric.
type checkoutTrainer struct {
	mu     sync.Mutex
	starts []string
	runs   map[string]*plugins.RunResult
}

func (c *checkoutTrainer) Describe(context.Context, *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return &plugins.DescribeResponse{}, nil
}

func (c *checkoutTrainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	res := &plugins.RunResult{RunID: req.RunID, Status: plugins.StatusFinished, Metric: 1.5, Seconds: 60}
	if req.Source != nil {
		out, err := exec.CommandContext(ctx, "git", "-C", req.Source.Repository, "show", req.Source.Commit+":params.txt").Output()
		if err != nil {
			return nil, err
		}
		text := string(out)
		for _, line := range strings.Split(text, "\n") {
			if v, ok := strings.CutPrefix(line, "rate = "); ok {
				res.Metric, _ = strconv.ParseFloat(v, 64)
			}
		}
		if strings.Contains(text, "crash") {
			res.Status, res.Reason = plugins.StatusError, "exit code 1; stderr ends: ValueError: crash in params"
			res.Logs = "stdout: /w/stdout\nstderr: /w/stderr\n--- stderr (end) ---\nTraceback (most recent call last):\n  File \"train.py\", line 3\nValueError: crash in params\n--- stdout (end) ---\nstep 1\n"
			res.Metric = 0
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.starts = append(c.starts, req.RunID)
	c.runs[req.RunID] = res
	return &plugins.RunHandle{RunID: req.RunID, Handle: "h-" + req.RunID}, nil
}

func (c *checkoutTrainer) Wait(_ context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := *c.runs[h.RunID]
	return &r, nil
}

func (c *checkoutTrainer) Cancel(context.Context, *plugins.RunHandle) error { return nil }

// repairService is a source-mode service whose trainer runs each commit
// (checkoutTrainer) and whose builder answers b's patches, over the
// journal j of repo.
func repairService(t *testing.T, b *scriptedBuilder, tr *checkoutTrainer, repo string, j *journal.Journal, repairs int, opts Options) *service {
	t.Helper()
	opts.Plugins = LoaderFunc(func(ctx context.Context, p *plan.Plugin) (Instance, error) {
		if p.Kind == plugins.KindTrainer {
			return &inst{t: tr}, nil
		}
		return &inst{l: b}, nil
	})
	return sourceServiceOn(t, b, repo, j, repairs, nil, opts)
}

// params is params.txt with the rate and, with crash, a line the trainer
// fails on.
func params(rate string, crash bool) string {
	s := "rate = " + rate + "\nwidth = 8\n"
	if crash {
		s += "crash = yes\n"
	}
	return s
}

// A candidate whose real run fails in its code goes back to the builder
// with the end of the run's stderr, shown the failing commit; the repair
// is a commit on it, run again, until one runs or the repairs are spent.
// Each attempt is a real run and a commit, status lists them in order,
// the last is the candidate, and a resume makes no new call or run.
func TestRunErrorsAreRepaired(t *testing.T) {
	crashy := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, params("0.5", true))
	still := textdiff.Unified("a/params.txt", "b/params.txt", params("0.5", true), params("0.25", true))
	fixed := textdiff.Unified("a/params.txt", "b/params.txt", params("0.25", true), params("0.25", false))
	repo := seedRepo(t)
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	b := &scriptedBuilder{patches: []string{crashy, still, fixed}}
	tr := &checkoutTrainer{runs: map[string]*plugins.RunResult{}}
	r := repairService(t, b, tr, repo, j, 2, Options{ID: "run-1"})
	task := r.tasks.find("tiny", "t0")
	const key = "loop/tiny/t0/0"
	run := func(r *service) (outcome, plugins.Proposal) {
		t.Helper()
		p, ok, err := r.implement("builder", "", key+"/implement", task, plugins.Proposal{ID: "p", Text: "halve the rate"})
		if err != nil || !ok {
			t.Fatalf("build: ok %v, err %v", ok, err)
		}
		out, err := r.runReal(scope{phase: "loop"}, []realRun{{Key: key, Task: task, Proposal: p, fix: fixerFor("builder", "", key+"/implement", task)}})
		if err != nil {
			t.Fatal(err)
		}
		return out[0], p
	}
	o, first := run(r)
	if o.Errored || o.Infeasible || o.Skipped || o.Failed || o.Repaired == nil || o.Metric != 0.25 {
		t.Fatalf("outcome %+v: want the second repair measured", o)
	}
	final := o.Repaired.Commit
	if got := strings.Join(tr.starts, " "); got != key+" "+key+"/repair/1 "+key+"/repair/2" {
		t.Fatalf("real runs %s", got)
	}
	checkRepairCalls(t, b, first.Commit)
	checkRepairCommits(t, repo, task, key, o, final)
	if err := j.SetMeta("run", runMeta{ID: "run-1"}); err != nil {
		t.Fatal(err)
	}
	st, err := statusOf(j, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	if st.RealRuns != 3 || st.Errored != 2 || st.Finished != 1 || st.Failed != 0 {
		t.Fatalf("status runs %d: %d errored, %d finished, %d failed", st.RealRuns, st.Errored, st.Finished, st.Failed)
	}
	checkAttempts(t, st, first.Commit, final, key)
	// A resume of the same journal calls nothing and runs nothing again.
	calls, started := len(b.reqs), len(tr.starts)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2, err := journal.Open(j.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	r2 := repairService(t, b, tr, repo, j2, 2, Options{ID: "run-1", Resume: true})
	if o2, _ := run(r2); o2.Repaired == nil || o2.Repaired.Commit != final || o2.Metric != 0.25 {
		t.Fatalf("resumed outcome %+v", o2)
	}
	if len(b.reqs) != calls || len(tr.starts) != started {
		t.Fatalf("the resume made %d builder calls and %d runs", len(b.reqs)-calls, len(tr.starts)-started)
	}
	if got := gitOut(t, repo, "rev-parse", "refs/assay/run-1/"+key); got != final {
		t.Fatalf("after the resume the candidate ref is at %s, want %s", got, final)
	}
}

// checkAttempts checks what status shows of the repaired candidate.
func checkAttempts(t *testing.T, st *Status, first, final, key string) {
	t.Helper()
	if len(st.Candidates) != 1 {
		t.Fatalf("candidates %+v", st.Candidates)
	}
	c := st.Candidates[0]
	if c.Commit != final || c.Repairs != 2 || c.Run != key+"/repair/2" || c.Status != plugins.StatusFinished || c.Metric == nil || *c.Metric != 0.25 || c.Gain == nil || *c.Gain != 1.25 {
		t.Fatalf("candidate %+v", c)
	}
	if len(c.Attempts) != 3 {
		t.Fatalf("attempts %+v", c.Attempts)
	}
	want := []struct{ run, status string }{{key, plugins.StatusError}, {key + "/repair/1", plugins.StatusError}, {key + "/repair/2", plugins.StatusFinished}}
	for i, a := range c.Attempts {
		if a.Run != want[i].run || a.Status != want[i].status || a.Repair != i {
			t.Errorf("attempt %d: %+v, want run %s %s", i, a, want[i].run, want[i].status)
		}
	}
	if c.Attempts[0].Commit != first || c.Attempts[2].Commit != final || !strings.Contains(c.Attempts[0].Reason, "ValueError") {
		t.Fatalf("attempts %+v", c.Attempts)
	}
}

// A candidate whose repairs are spent stays failed: infeasible, its
// error the last word; its repairs shared with its build's (one repair
// went to a patch that did not apply). Without a builder to repair it (a
// fixer), the same error is retried like a failed run.
func TestRunErrorRepairsSpent(t *testing.T) {
	crashy := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, params("0.5", true))
	stale := strings.Replace(crashy, " rate = 0.5", " rate = 0.9", 1) // context the file does not hold: refused
	still := textdiff.Unified("a/params.txt", "b/params.txt", params("0.5", true), params("0.25", true))
	repo := seedRepo(t)
	j, err := journal.Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	b := &scriptedBuilder{patches: []string{stale, crashy, still}}
	tr := &checkoutTrainer{runs: map[string]*plugins.RunResult{}}
	r := repairService(t, b, tr, repo, j, 2, Options{ID: "run-1"})
	task := r.tasks.find("tiny", "t0")
	p, ok, err := r.implement("builder", "", "k/implement", task, plugins.Proposal{ID: "p"})
	if err != nil || !ok {
		t.Fatalf("build: ok %v, err %v", ok, err)
	}
	out, err := r.runReal(scope{phase: "loop"}, []realRun{
		{Key: "k", Task: task, Proposal: p, fix: fixerFor("builder", "", "k/implement", task)},
		{Key: "plain", Task: task, Proposal: p},
	})
	if err != nil {
		t.Fatal(err)
	}
	if o := out[0]; !o.Errored || !o.Infeasible || o.Repaired == nil || o.Repaired.Commit == p.Commit {
		t.Fatalf("repaired candidate's outcome %+v: want its repair's error", o)
	}
	if o := out[1]; !o.Failed || o.Errored || o.Repaired != nil {
		t.Fatalf("unrepaired run's outcome %+v: want a failure after retries", o)
	}
	if len(b.reqs) != 3 {
		t.Fatalf("%d builder calls, want 3: the build, its repair, one run repair", len(b.reqs))
	}
	got := slices.Clone(tr.starts)
	slices.Sort(got)
	if strings.Join(got, " ") != "k k/repair/2 plain plain~1 plain~2" {
		t.Fatalf("real runs %s", got)
	}
}

// checkRepairCalls checks what the builder was sent: each repair the end
// of the failed run's stderr (not its stdout), shown the failing commit.
func checkRepairCalls(t *testing.T, b *scriptedBuilder, first string) {
	t.Helper()
	if len(b.reqs) != 3 {
		t.Fatalf("%d builder calls, want 3", len(b.reqs))
	}
	rep := b.reqs[1]
	if rep.Repair != 1 || rep.Source == nil || rep.Source.Commit != first ||
		!strings.Contains(rep.Failure, "ValueError: crash in params") || !strings.Contains(rep.Failure, "exit code 1") || strings.Contains(rep.Failure, "step 1") {
		t.Fatalf("the first repair was sent repair %d, source %+v, failure %q", rep.Repair, rep.Source, rep.Failure)
	}
	if b.reqs[2].Repair != 2 || b.reqs[2].Source.Commit == first {
		t.Fatalf("the second repair was not shown the first repair's commit: %+v", b.reqs[2].Source)
	}
}

// checkRepairCommits checks the repairs' commits and the repaired patch.
func checkRepairCommits(t *testing.T, repo string, task *taskInfo, key string, o outcome, final string) {
	t.Helper()
	// The candidate's ref moves to each repair, a commit on the one that
	// failed; the proposal's patch is the whole change from the seed.
	if got := gitOut(t, repo, "rev-parse", "refs/assay/run-1/"+key); got != final {
		t.Fatalf("candidate ref at %s, want %s", got, final)
	}
	if got := gitOut(t, repo, "rev-list", "--count", task.src.base+".."+final); got != "3" {
		t.Fatalf("%s commits from the seed to the last repair, want 3", got)
	}
	if want := textdiff.Unified("a/params.txt", "b/params.txt", seedParams, params("0.25", false)); !strings.Contains(o.Repaired.Patch, "-rate = 0.5") || !strings.Contains(o.Repaired.Patch, "+rate = 0.25") || strings.Contains(o.Repaired.Patch, "crash") {
		t.Fatalf("the repair's patch is not the whole change:\n%s\nwant the change of\n%s", o.Repaired.Patch, want)
	}
}
