package trainer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor/slurm"
)

// requireSlurm skips a test when no Slurm controller answers, except under
// CI=true, where the cluster is part of the job (.ci/slurm-up.sh).
func requireSlurm(t *testing.T) {
	t.Helper()
	if err := slurmAvailable(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no Slurm cluster: %v (.ci/slurm-up.sh starts one)", err)
		}
		t.Skipf("no Slurm cluster: %v (start one with .ci/slurm-up.sh)", err)
	}
}

// slurmAvailable probes the controller once per test binary: a probe
// that finds none takes some 9 s of retries, once for each test otherwise.
// It starts when the binary does, so those seconds pass while the other
// tests run rather than before the first Slurm test.
var slurmAvailable = func() func() error {
	probe := make(chan error, 1)
	go func() { probe <- slurm.Available(context.Background()) }()
	return sync.OnceValue(func() error { return <-probe })
}()

func slurmRequest(t *testing.T, id string, cfg map[string]any, slurmCfg map[string]any) *plugins.RunRequest {
	req := request(t, id, cfg, nil)
	req.RunID = id + "-" + filepath.Base(filepath.Dir(filepath.Dir(req.WorkDir))) // t.TempDir is unique: so are job names
	req.Executor = plugins.ExecutorSpec{Kind: "slurm", Concurrency: 4, Slurm: slurmCfg}
	return req
}

func jobState(t *testing.T, handle string) string {
	t.Helper()
	id := strings.TrimPrefix(strings.SplitN(handle, "@", 2)[0], "slurm:")
	in, err := slurm.Query(context.Background(), id)
	if err != nil {
		t.Fatalf("query %s: %v", id, err)
	}
	return in.JobState
}

func TestSlurmSuccessAndInfeasible(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	tr := newTrainer()
	ok := slurmRequest(t, "ok", map[string]any{
		"command": `printf '{"eval": {"loss": %s}}' {{lr}} > metrics.json; echo "$SLURM_JOB_ID" > jobid`, "metric_file": "metrics.json", "metric_field": "eval.loss",
	}, map[string]any{"time_limit": "5"})
	ok.Proposal.Edits = map[string]string{"lr": "0.125"}
	bad := slurmRequest(t, "bad", map[string]any{"command": "exit 3", "metric_regex": "x(1)", "infeasible_exit_codes": []any{3}}, nil)

	r := run(t, tr, ok)
	if r.Status != plugins.StatusFinished || r.Metric != 0.125 {
		t.Fatalf("got %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(ok.WorkDir, "jobid")); err != nil || strings.TrimSpace(string(b)) == "" {
		t.Fatalf("the command did not run under Slurm: %v", err)
	}
	r = run(t, tr, bad)
	if r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, "exit code 3") {
		t.Fatalf("got %+v", r)
	}
}

// The trainer's own limit ends a run to the second, inside the job.
func TestSlurmTrainerTimeLimit(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	req := slurmRequest(t, "tl", map[string]any{"command": "sleep 120", "metric_regex": "x(1)", "time_limit": "2s"}, nil)
	r := run(t, newTrainer(), req)
	if r.Status != plugins.StatusFailed || !strings.Contains(r.Reason, "time limit of 2s exceeded") {
		t.Fatalf("got %+v", r)
	}
}

// Slurm's own TIMEOUT state (--time=1 minute, noticed up to ~20 s late).
func TestSlurmTimeoutState(t *testing.T) {
	requireSlurm(t)
	if testing.Short() {
		t.Skip("takes 60-90 s")
	}
	t.Parallel()
	req := slurmRequest(t, "to", map[string]any{"command": "sleep 600", "metric_regex": "x(1)", "timeout_infeasible": true},
		map[string]any{"time_limit": "1"})
	r := run(t, newTrainer(), req)
	if r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, "time limit") {
		t.Fatalf("got %+v", r)
	}
}

func TestSlurmArray(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	tr := newTrainer()
	var reqs []*plugins.RunRequest
	for i, lr := range []string{"0.5", "0.25", "0.125"} {
		req := slurmRequest(t, "arr", map[string]any{"command": "echo task=$SLURM_ARRAY_TASK_ID; echo m={{lr}}", "metric_regex": `m=([0-9.]+)`},
			map[string]any{"array": true})
		req.RunID += "-" + lr
		req.Proposal.Edits = map[string]string{"lr": lr}
		_ = i
		reqs = append(reqs, req)
	}
	ctx := context.Background()
	resp, err := tr.StartBatch(ctx, &plugins.BatchRequest{Runs: reqs})
	if err != nil {
		t.Fatal(err)
	}
	hs := resp.Handles
	base := strings.SplitN(strings.TrimPrefix(hs[0].Handle, "slurm:"), "_", 2)[0]
	for i, h := range hs {
		want := "slurm:" + base + "_" + string(rune('0'+i)) + "@"
		if !strings.HasPrefix(h.Handle, want) {
			t.Fatalf("handle %d is %s, want prefix %s (one array)", i, h.Handle, want)
		}
	}
	for i, h := range hs {
		r, err := tr.Wait(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if want := reqs[i].Proposal.Edits["lr"]; r.Status != plugins.StatusFinished || r.Metric == 0 || !strings.Contains(r.Logs, "task="+string(rune('0'+i))) {
			t.Fatalf("task %d (lr %s): %+v", i, want, r)
		}
	}
}

func TestSlurmCancel(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	tr := newTrainer()
	req := slurmRequest(t, "cx", map[string]any{"command": "touch started; sleep 300", "metric_regex": "x(1)"}, nil)
	ctx := context.Background()
	h, err := tr.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, filepath.Join(req.WorkDir, "started"), 60*time.Second)
	if err := tr.Cancel(ctx, h); err != nil {
		t.Fatal(err)
	}
	r, err := tr.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusCancelled {
		t.Fatalf("got %+v", r)
	}
	if s := jobState(t, h.Handle); s != "CANCELLED" {
		t.Fatalf("Slurm says %s", s)
	}
}

// The submitting process dies (kill -9) mid-run; a fresh trainer re-attaches
// by the job id in the handle, and nothing is submitted twice.
func TestSlurmReattachAfterKill(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	req := slurmRequest(t, "crash", map[string]any{
		"command": "echo run >> {{workdir}}/../executions; sleep 3; echo m=0.5", "metric_regex": `m=([0-9.]+)`,
	}, nil)
	b, _ := json.Marshal(req)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSubmit$")
	cmd.Env = append(os.Environ(), "ASSAY_TEST_SUBMIT="+string(b))
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "handle ") {
		t.Fatalf("helper printed %q: %v", line, err)
	}
	handle := strings.TrimSpace(strings.TrimPrefix(line, "handle "))
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	tr := newTrainer()
	ctx := context.Background()
	// Starting it again (a runtime that lost the journal write) must not resubmit.
	h2, err := tr.Start(ctx, req)
	if err != nil || h2.Handle != handle {
		t.Fatalf("restart gave %v %v, want %s", h2, err, handle)
	}
	r, err := tr.Wait(ctx, &plugins.RunHandle{RunID: req.RunID, Handle: handle})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != plugins.StatusFinished || r.Metric != 0.5 {
		t.Fatalf("got %+v", r)
	}
	out, _ := os.ReadFile(filepath.Join(req.WorkDir, "..", "executions"))
	if n := strings.Count(string(out), "run"); n != 1 {
		t.Fatalf("the command ran %d times", n)
	}
	jobs, err := exec.Command("squeue", "-h", "-t", "all", "-n", "assay-"+unsafeRE.ReplaceAllString(req.RunID, "_"), "-o", "%i").Output()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(jobs))); n != 1 {
		t.Fatalf("Slurm holds %d jobs for the run, want 1: %s", n, jobs)
	}
}

// TestHelperSubmit is the submitting process of TestSlurmReattachAfterKill:
// it starts the run, prints the handle and waits to be killed.
func TestHelperSubmit(t *testing.T) {
	s := os.Getenv("ASSAY_TEST_SUBMIT")
	if s == "" {
		t.Skip("helper process for TestSlurmReattachAfterKill")
	}
	var req plugins.RunRequest
	if err := json.Unmarshal([]byte(s), &req); err != nil {
		t.Fatal(err)
	}
	h, err := newTrainer().Start(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("handle " + h.Handle + "\n")
	time.Sleep(time.Minute)
}

func waitFor(t *testing.T, path string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within %s", path, d)
}

// A Slurm job sees the base environment and pass_env, never the rest of
// the environment assay runs in (an API key): sbatch --export carries only
// those names.
func TestSlurmJobEnvironmentIsScrubbed(t *testing.T) {
	requireSlurm(t)
	t.Setenv("OPENAI_API_KEY", "sk-slurm-secret")
	t.Setenv("ASSAY_TEST_PASSED", "passed-through")
	req := slurmRequest(t, "env", map[string]any{
		"command": "env > env.txt; echo m=1", "metric_regex": "m=(1)", "pass_env": []any{"ASSAY_TEST_PASSED"},
	}, nil)
	if r := run(t, newTrainer(), req); r.Status != plugins.StatusFinished {
		t.Fatalf("got %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(req.WorkDir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if strings.Contains(env, "sk-slurm-secret") || strings.Contains(env, "OPENAI_API_KEY") {
		t.Errorf("the job saw the API key:\n%s", env)
	}
	for _, want := range []string{"ASSAY_TEST_PASSED=passed-through", "PATH=", "SLURM_JOB_ID="} {
		if !strings.Contains(env, want) {
			t.Errorf("the job lacks %s:\n%s", want, env)
		}
	}
}

// A run that needs no GPU asks Slurm for none; one that needs a GPU asks
// for it (the CI cluster's stand-in GPUs).
func TestSlurmGPURequest(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	tr := newTrainer()
	for _, gpus := range []int{0, 1} {
		req := slurmRequest(t, "gpus"+strconv.Itoa(gpus), map[string]any{"command": "echo m=1", "metric_regex": "m=(1)"}, nil)
		req.GPUs = gpus
		ctx := context.Background()
		h, err := tr.Start(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := tr.Wait(ctx, h); err != nil || r.Status != plugins.StatusFinished {
			t.Fatalf("gpus %d: %+v %v", gpus, r, err)
		}
		id := strings.TrimPrefix(strings.SplitN(h.Handle, "@", 2)[0], "slurm:")
		out, err := exec.Command("scontrol", "show", "job", id, "-o").CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol: %v: %s", err, out)
		}
		// Slurm 22.05 shows the request as TresPerNode=gres:gpu:N.
		asked := strings.Contains(string(out), "gres:gpu") || strings.Contains(string(out), "gres/gpu")
		if asked != (gpus > 0) {
			t.Errorf("gpus %d: the job asks for a GPU: %v\n%s", gpus, asked, out)
		}
	}
}
