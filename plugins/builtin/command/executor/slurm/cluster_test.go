package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// requireCluster skips a test when no Slurm controller answers, except
// under CI=true, where the cluster is part of the job (.ci/slurm-up.sh).
func requireCluster(t *testing.T) {
	t.Helper()
	if err := Available(context.Background()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no Slurm cluster: %v (.ci/slurm-up.sh starts one)", err)
		}
		t.Skipf("no Slurm cluster: %v (start one with .ci/slurm-up.sh)", err)
	}
}

// countTools puts a wrapper of each Slurm tool first on PATH that logs
// "NAME" to the returned file and runs the real tool.
func countTools(t *testing.T) string {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	for _, tool := range []string{"sbatch", "squeue", "sacct", "scontrol", "scancel", "sinfo"} {
		real, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		script := fmt.Sprintf("#!/bin/sh\necho %s >> %s\nexec %s \"$@\"\n", tool, executor.Quote(log), executor.Quote(real))
		if err := os.WriteFile(filepath.Join(dir, tool), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func countCalls(t *testing.T, log string) map[string]int {
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, tool := range strings.Fields(string(b)) {
		n[tool]++
	}
	return n
}

// clusterJobs is the number of jobs in flight at once, and the most
// queries (squeue, sacct, scontrol) the executor may send per poll
// interval while waiting on them: one squeue and one sacct.
const (
	clusterJobs      = 20
	queriesPerPeriod = 2
)

// TestClusterQueriesPerInterval submits 20 jobs to the real cluster and
// waits on all of them at once, each Wait from an executor of its own (as
// the command trainer makes them), counting the commands that reach the
// controller with wrappers on PATH: at most queriesPerPeriod per interval,
// however many jobs are in flight.
func TestClusterQueriesPerInterval(t *testing.T) {
	requireCluster(t)
	log := countTools(t)
	const every = time.Second
	opts := Options{PollInterval: every, TimeLimit: "5"}
	dir := t.TempDir()
	ctx := context.Background()
	var handles []string
	for i := range clusterJobs {
		jd := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(jd, 0o755); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(jd, "run.sh")
		if err := os.WriteFile(script, []byte(fmt.Sprintf("exit %d\n", i%3)), 0o644); err != nil {
			t.Fatal(err)
		}
		job := &executor.Job{Name: "assay-queries-" + strconv.Itoa(i), Dir: jd, Script: script,
			Stdout: filepath.Join(jd, "stdout"), Stderr: filepath.Join(jd, "stderr")}
		h, err := New(opts).Submit(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		handles = append(handles, h)
	}
	submitted := countCalls(t, log)
	start := time.Now()
	var wg sync.WaitGroup
	results := make([]executor.Status, len(handles))
	errs := make([]error, len(handles))
	for i, h := range handles {
		wg.Go(func() { results[i], errs[i] = New(opts).Wait(ctx, h) })
	}
	wg.Wait()
	took := time.Since(start)
	calls := countCalls(t, log)
	for i, st := range results {
		if errs[i] != nil || st.ExitCode != i%3 || (st.State == executor.Completed) != (i%3 == 0) {
			t.Errorf("job %d (%s): %+v, %v; want exit code %d", i, handles[i], st, errs[i], i%3)
		}
	}
	queries := calls["squeue"] + calls["sacct"] + calls["scontrol"] - submitted["squeue"] - submitted["sacct"] - submitted["scontrol"]
	periods := took.Seconds()/every.Seconds() + 1
	t.Logf("%d jobs in %.1f s: %d queries (%d squeue, %d sacct, %d scontrol), %.2f per %s interval",
		clusterJobs, took.Seconds(), queries, calls["squeue"], calls["sacct"], calls["scontrol"], float64(queries)/periods, every)
	if float64(queries) > queriesPerPeriod*periods {
		t.Errorf("%d queries in %.1f intervals with %d jobs in flight: more than %d an interval", queries, periods, clusterJobs, queriesPerPeriod)
	}
}
