package local

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

func job(t *testing.T, name, script string, gpus int) *executor.Job {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &executor.Job{Name: name, Dir: dir, Script: path, Stdout: filepath.Join(dir, "stdout"), Stderr: filepath.Join(dir, "stderr"), GPUs: gpus}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestStatesOfEnds(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Concurrency: 4, KillGrace: time.Second})
	cases := []struct {
		script string
		limit  time.Duration
		want   executor.State
		code   int
		signal int
	}{
		{"echo hi", 0, executor.Completed, 0, 0},
		{"exit 3", 0, executor.Failed, 3, 0},
		{"kill -9 $$", 0, executor.Failed, 137, 0},  // the script's shell, seen by the wrapper
		{"kill -9 $PPID", 0, executor.Failed, 0, 9}, // the wrapper itself
		{"sleep 30", 300 * time.Millisecond, executor.TimedOut, 0, 15},
	}
	for _, c := range cases {
		j := job(t, "j", c.script, 0)
		j.TimeLimit = c.limit
		h, err := e.Submit(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		st, err := e.Wait(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != c.want || st.ExitCode != c.code || st.Signal != c.signal {
			t.Errorf("%q: got %+v, want %s exit %d signal %d", c.script, st, c.want, c.code, c.signal)
		}
	}
}

// GPU slots: two 2-GPU jobs share a 4-GPU pool with disjoint devices, a
// third waits for a slot, a CPU-only job sees no GPU.
func TestGPUSlots(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Concurrency: 4, GPUIDs: GPUIDs(4), KillGrace: time.Second})
	var handles []string
	var jobs []*executor.Job
	for _, n := range []string{"a", "b"} {
		j := job(t, n, "echo \"$CUDA_VISIBLE_DEVICES\" > gpus; sleep 1", 2)
		h, err := e.Submit(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		handles, jobs = append(handles, h), append(jobs, j)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := e.Submit(short, job(t, "c", "true", 1)); err == nil {
		t.Fatal("a third job got GPUs from a full pool")
	}
	for _, h := range handles {
		if st, err := e.Wait(ctx, h); err != nil || st.State != executor.Completed {
			t.Fatalf("wait: %+v %v", st, err)
		}
	}
	var all []string
	for _, j := range jobs {
		ids := strings.Split(read(t, filepath.Join(j.Dir, "gpus")), ",")
		if len(ids) != 2 {
			t.Fatalf("job %s got GPUs %v, want 2", j.Name, ids)
		}
		all = append(all, ids...)
	}
	sort.Strings(all)
	if strings.Join(all, ",") != "0,1,2,3" {
		t.Fatalf("GPUs handed out %v, want 0..3 each once", all)
	}
	// Slots come back: now a job gets GPUs at once.
	j := job(t, "d", "echo \"$CUDA_VISIBLE_DEVICES\" > gpus", 3)
	h, err := e.Submit(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Wait(ctx, h); err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(read(t, filepath.Join(j.Dir, "gpus")), ","); len(got) != 3 {
		t.Fatalf("got %v, want 3 GPUs", got)
	}

	cpu := New(Options{Concurrency: 1})
	j = job(t, "cpu", "echo \"[${CUDA_VISIBLE_DEVICES-unset}]\" > gpus", 0)
	h, err = cpu.Submit(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cpu.Wait(ctx, h); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(j.Dir, "gpus")); got != "[]" {
		t.Fatalf("CPU-only job sees CUDA_VISIBLE_DEVICES %s, want empty", got)
	}
	if _, err := cpu.Submit(ctx, job(t, "big", "true", 1)); err == nil || !strings.Contains(err.Error(), "executor.gpus") {
		t.Fatalf("a GPU job on a CPU-only pool: got %v", err)
	}
}

func TestConcurrencyBound(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Concurrency: 1})
	h, err := e.Submit(ctx, job(t, "a", "sleep 0.5", 0))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	h2, err := e.Submit(ctx, job(t, "b", "true", 0))
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 300*time.Millisecond {
		t.Fatal("second job started while the only slot was busy")
	}
	for _, h := range []string{h, h2} {
		if _, err := e.Wait(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
}

// Cancel kills the whole process group, children included.
func TestCancelKillsChildren(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Concurrency: 1, KillGrace: time.Second})
	j := job(t, "c", "sleep 60 & echo $! > child; wait", 0)
	h, err := e.Submit(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	child := waitFile(t, filepath.Join(j.Dir, "child"))
	if err := e.Cancel(ctx, h); err != nil {
		t.Fatal(err)
	}
	st, err := e.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != executor.Cancelled || !st.CancelledByUs {
		t.Fatalf("got %+v, want cancelled by us", st)
	}
	waitGone(t, child)
}

// A fresh pool re-attaches to a job another pool started, by its handle.
func TestReattach(t *testing.T) {
	ctx := context.Background()
	first := New(Options{Concurrency: 1})
	j := job(t, "r", "sleep 0.5; exit 7", 0)
	h, err := first.Submit(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	fresh := New(Options{PollInterval: 50 * time.Millisecond})
	st, err := fresh.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != executor.Failed || st.ExitCode != 7 {
		t.Fatalf("re-attached: got %+v, want failed with exit 7", st)
	}
	// And cancels a job it did not start.
	j2 := job(t, "r2", "sleep 60", 0)
	h2, err := first.Submit(ctx, j2)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := fresh.Cancel(ctx, h2); err != nil {
		t.Fatal(err)
	}
	if st, err := first.Wait(ctx, h2); err != nil || st.State != executor.Cancelled {
		t.Fatalf("cancelled from a fresh pool: %+v %v", st, err)
	}
}

func waitFile(t *testing.T, path string) string {
	t.Helper()
	for i := 0; i < 100; i++ {
		if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func waitGone(t *testing.T, pid string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(b), ") Z") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("child %s survived Cancel", pid)
}

// A job sees the base environment and what the job passes, never the rest
// of Assay's environment (an API key).
func TestJobEnvironmentIsScrubbed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-key")
	t.Setenv("ASSAY_UNRELATED", "x")
	e := New(Options{Concurrency: 1})
	j := job(t, "env", "env", 0)
	j.Env = []string{"PASSED=yes"}
	h, err := e.Submit(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := e.Wait(context.Background(), h); err != nil || st.State != executor.Completed {
		t.Fatalf("%+v %v", st, err)
	}
	out := read(t, j.Stdout)
	for _, bad := range []string{"sk-secret-key", "OPENAI_API_KEY", "ASSAY_UNRELATED"} {
		if strings.Contains(out, bad) {
			t.Errorf("the job saw %s:\n%s", bad, out)
		}
	}
	for _, want := range []string{"PASSED=yes", "PATH=", "CUDA_VISIBLE_DEVICES="} {
		if !strings.Contains(out, want) {
			t.Errorf("the job lacks %s:\n%s", want, out)
		}
	}
}
