package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assay-lang/assay/plugins"
)

// openTest locks the test plugin (as all three kinds) and the echo trainer
// in a temp dir and opens the plugin called name.
func openTest(t *testing.T, name string) (*Plugin, *Lock) {
	t.Helper()
	dir := t.TempDir()
	specs := []Spec{
		{Name: "tp", Kind: plugins.KindTrainer, Source: testPluginBin, Version: "1"},
		{Name: "tp-llm", Kind: plugins.KindLLM, Source: testPluginBin},
		{Name: "tp-bench", Kind: plugins.KindBenchmark, Source: testPluginBin},
		{Name: "echo", Kind: plugins.KindTrainer, Source: echoBin},
		{Name: "echo-as-llm", Kind: plugins.KindLLM, Source: echoBin},
	}
	lock, err := Init(context.Background(), specs, filepath.Join(dir, testLock), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(context.Background(), lock, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, lock
}

func TestLockFile(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, echoBin, dir)
	lockPath := filepath.Join(dir, testLock)
	lock, err := Init(context.Background(), []Spec{
		{Name: "echo", Kind: plugins.KindTrainer, Source: "./echotrainer", Version: "0.1.0"},
	}, lockPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := []LockedPlugin{{Name: "echo", Kind: "trainer", Source: "./echotrainer", Version: "0.1.0", Checksums: map[string]string{Platform: sum}}}
	if diff := cmp.Diff(want, lock.Plugins); diff != "" {
		t.Errorf("lock (-want +got):\n%s", diff)
	}
	read, err := ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, read.Plugins); diff != "" {
		t.Errorf("lock read back (-want +got):\n%s", diff)
	}
	if got, _ := read.BinaryPath(read.Plugins[0]); got != bin {
		t.Errorf("BinaryPath = %s, want %s", got, bin)
	}

	os.WriteFile(lockPath, []byte(`{"format_version": 9, "plugins": []}`), 0o644)
	if _, err := ReadLock(lockPath); err == nil || !strings.Contains(err.Error(), "assay init") {
		t.Errorf("ReadLock of a future format: err = %v, want one saying to run assay init", err)
	}
	if _, err := ReadLock(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "assay init") {
		t.Errorf("ReadLock of a missing file: err = %v, want one saying to run assay init", err)
	}
}

func TestInitErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notexec"), []byte("#!/bin/sh\n"), 0o644)
	tests := []struct {
		name  string
		specs []Spec
		want  []string
	}{
		{"duplicate", []Spec{{Name: "a", Kind: "llm", Source: echoBin}, {Name: "a", Kind: "llm", Source: echoBin}}, []string{`plugin "a" is declared twice`}},
		{"kind", []Spec{{Name: "a", Kind: "optimizer", Source: echoBin}}, []string{`unknown kind "optimizer"`}},
		{"no source", []Spec{{Name: "a", Kind: "llm"}}, []string{`plugin "a" has no source`}},
		{"no name", []Spec{{Kind: "llm", Source: echoBin}}, []string{`plugin #1 has no name`}},
		{"missing", []Spec{{Name: "a", Kind: "llm", Source: "./nope"}}, []string{"no plugin executable at " + filepath.Join(dir, "nope")}},
		{"not executable", []Spec{{Name: "a", Kind: "llm", Source: "notexec"}}, []string{"is not executable"}},
		{"bad builtin name", []Spec{{Name: "a", Kind: "llm", Source: "builtin:../x"}}, []string{`no built-in plugin "../x"`}},
		{"unknown builtin", []Spec{{Name: "a", Kind: "llm", Source: "builtin:nosuch"}}, []string{`no built-in plugin "nosuch"`, "openai"}},
		{"all at once", []Spec{{Name: "a", Kind: "x", Source: "./nope"}, {Name: "b", Kind: "y", Source: "./nope"}}, []string{`plugin "a"`, `plugin "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lockPath := filepath.Join(dir, testLock)
			_, err := Init(context.Background(), tt.specs, lockPath, Options{})
			if err == nil {
				t.Fatal("Init succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if _, err := os.Stat(lockPath); err == nil {
				t.Error("a failed Init wrote a lock file")
			}
		})
	}
}

func TestTrainerRoundTrip(t *testing.T) {
	p, _ := openTest(t, "tp")
	ctx := context.Background()
	tr := p.Trainer()
	d, err := tr.Describe(ctx, &plugins.DescribeRequest{Config: map[string]any{"x": 1.5, "nested": map[string]any{"y": []any{"a"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Knobs) != 2 || d.Knobs[0].Name != "lr" || d.Knobs[0].Mechanism != "optimizer" ||
		!cmp.Equal(d.Knobs[0].Values, []string{"1e-4", "3e-4", "1e-3"}) {
		t.Errorf("Describe = %+v", d)
	}
	h, err := tr.Start(ctx, &plugins.RunRequest{
		RunID: "r1", Env: "olmo3", Task: "t1",
		Proposal: plugins.Proposal{ID: "p1", Edits: map[string]string{"lr": "1e-3"}},
		Executor: plugins.ExecutorSpec{Kind: "slurm", Slurm: map[string]any{"partition": "gpu"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (&plugins.RunHandle{RunID: "r1", Handle: "olmo3/t1/1e-3"}); !cmp.Equal(h, want) {
		t.Errorf("Start = %+v, want %+v", h, want)
	}
	r, err := tr.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&plugins.RunResult{RunID: "r1", Status: plugins.StatusFinished, Metric: 2.5, Logs: "olmo3/t1/1e-3"}); !cmp.Equal(r, want) {
		t.Errorf("Wait = %+v, want %+v", r, want)
	}
	if err := tr.Cancel(ctx, h); err != nil {
		t.Errorf("Cancel: %v", err)
	}
}

func TestLLMAndBenchmarkRoundTrip(t *testing.T) {
	p, lock := openTest(t, "tp-llm")
	ctx := context.Background()
	if p.Trainer() != nil || p.Benchmark() != nil {
		t.Error("a plugin locked as an llm offers a trainer or a benchmark")
	}
	resp, err := p.LLM().Complete(ctx, &plugins.CompleteRequest{
		Role: plugins.RolePropose, Model: "m", Payload: []byte(`{"state":"s"}`),
		Messages: []plugins.Message{{Role: "user", Content: "hi"}}, Config: map[string]any{"k": "v"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &plugins.CompleteResponse{Text: "proposer:m", Payload: []byte(`{"state":"s"}`), Usage: plugins.Usage{In: 13, Out: 13}}
	if !cmp.Equal(resp, want) {
		t.Errorf("Complete = %+v, want %+v", resp, want)
	}
	_, err = p.LLM().Update(ctx, &plugins.UpdateRequest{Model: "m"})
	if !errors.Is(err, plugins.ErrUnsupported) || status.Code(err) != codes.Unimplemented {
		t.Errorf("Update: err = %v (code %v), want ErrUnsupported / Unimplemented", err, status.Code(err))
	}
	pb, err := Open(ctx, lock, "tp-bench")
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	tasks, err := pb.Benchmark().Tasks(ctx, &plugins.TasksRequest{Env: "qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	wantTasks := []plugins.TaskInfo{{Name: "qwen3-t1", Split: "train", Baseline: 1.5, Scale: 0.1, Metric: "loss", Minimize: true}}
	if !cmp.Equal(tasks.Tasks, wantTasks) {
		t.Errorf("Tasks = %+v, want %+v", tasks.Tasks, wantTasks)
	}
}

func TestErrorsCrossTheWire(t *testing.T) {
	p, _ := openTest(t, "tp")
	_, err := p.Trainer().Describe(context.Background(), &plugins.DescribeRequest{Config: map[string]any{"fail": "disk full"}})
	if err == nil || !strings.Contains(err.Error(), "disk full") || status.Code(err) != codes.Unknown {
		t.Errorf("Describe: err = %v (code %v), want the plugin's message with code Unknown", err, status.Code(err))
	}
	if errors.Is(err, ErrPluginCrashed) {
		t.Errorf("a plugin error was taken for a crash: %v", err)
	}
	pidOf(t, p) // the process still answers
	// A trainer-only binary registers no LLM service.
	echo, _ := openTest(t, "echo-as-llm")
	_, err = echo.LLM().Complete(context.Background(), &plugins.CompleteRequest{})
	if !errors.Is(err, plugins.ErrUnsupported) {
		t.Errorf("Complete on a trainer: err = %v, want ErrUnsupported", err)
	}
}

func TestEchoTrainer(t *testing.T) {
	p, _ := openTest(t, "echo")
	ctx := context.Background()
	tests := []struct {
		edits  map[string]string
		config map[string]any
		status string
		metric float64
		reason string
	}{
		{edits: nil, status: plugins.StatusFinished, metric: 3.0},
		{edits: map[string]string{"lr": "1e-3"}, status: plugins.StatusFinished, metric: 2.97},
		{edits: map[string]string{"lr": "1e-3", "dropout": "0.1", "warmup_steps": "500"}, status: plugins.StatusFinished, metric: 2.945},
		{edits: map[string]string{"lr": "1e-4"}, config: map[string]any{"baseline": 2.0}, status: plugins.StatusFinished, metric: 2.04},
		{edits: map[string]string{"momentum": "0.9"}, status: plugins.StatusInfeasible, reason: `unknown knob "momentum"`},
		{edits: map[string]string{"lr": "1"}, status: plugins.StatusInfeasible, reason: `knob lr has no value "1"`},
	}
	for _, tt := range tests {
		h, err := p.Trainer().Start(ctx, &plugins.RunRequest{RunID: "r", Proposal: plugins.Proposal{Edits: tt.edits}, Config: tt.config})
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Trainer().Wait(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != tt.status || r.Reason != tt.reason || abs(r.Metric-tt.metric) > 1e-9 {
			t.Errorf("edits %v: got %s %v %q, want %s %v %q", tt.edits, r.Status, r.Metric, r.Reason, tt.status, tt.metric, tt.reason)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestChecksumRefusal(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, echoBin, dir)
	lock, err := Init(context.Background(), []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: bin}}, filepath.Join(dir, testLock), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("tampered"))
	f.Close()
	actual, _ := FileSHA256(bin)

	_, err = Open(context.Background(), lock, "echo")
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("Open of a changed binary: err = %v, want a *ChecksumError", err)
	}
	for _, w := range []string{`plugin "echo"`, bin, lock.Plugins[0].Checksums[Platform], actual, "assay init -upgrade=echo", testLock} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if !errors.Is(err, plugins.ErrChecksum) || !errors.Is(err, plugins.ErrPluginStart) || !plugins.IsPermanent(err) {
		t.Errorf("checksum refusal %v: want errors.Is ErrChecksum and ErrPluginStart", err)
	}
}

// Every way Open can fail to start a plugin is plugins.ErrPluginStart, so
// the runtime stops before it reserves anything.
func TestOpenFailuresArePluginStart(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, echoBin, dir)
	lock, err := Init(context.Background(), []Spec{{Name: "echo", Kind: plugins.KindTrainer, Source: bin}}, filepath.Join(dir, testLock), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), lock, "nope"); !errors.Is(err, plugins.ErrPluginStart) {
		t.Errorf("plugin not in the lock: %v, want ErrPluginStart", err)
	}
	bad := *lock
	bad.Plugins = []LockedPlugin{lock.Plugins[0]}
	bad.Plugins[0].Checksums = map[string]string{Platform: "xyz"}
	if _, err := Open(context.Background(), &bad, "echo"); !errors.Is(err, plugins.ErrPluginStart) {
		t.Errorf("bad checksum in the lock: %v, want ErrPluginStart", err)
	}
	notPlugin := filepath.Join(dir, "true.sh")
	os.WriteFile(notPlugin, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	sum, _ := FileSHA256(notPlugin)
	bad.Plugins[0].Source, bad.Plugins[0].Checksums = notPlugin, map[string]string{Platform: sum}
	if _, err := Open(context.Background(), &bad, "echo"); !errors.Is(err, plugins.ErrPluginStart) || errors.Is(err, plugins.ErrChecksum) {
		t.Errorf("a binary that is no plugin: %v, want ErrPluginStart only", err)
	}
	os.Remove(bin)
	if _, err := Open(context.Background(), lock, "echo"); !errors.Is(err, plugins.ErrPluginStart) {
		t.Errorf("missing binary: %v, want ErrPluginStart", err)
	}
	// A process that an interrupt ends while it starts was stopped (Ctrl-C
	// reaches the whole process group); one that exits was not.
	for script, stopped := range map[string]bool{"kill -INT $$\nsleep 5\n": true, "kill -TERM $$\nsleep 5\n": true, "exit 3\n": false} {
		sh := filepath.Join(dir, "stop.sh")
		os.WriteFile(sh, []byte("#!/bin/sh\n"+script), 0o755)
		sum, _ := FileSHA256(sh)
		bad.Plugins[0].Source, bad.Plugins[0].Checksums = sh, map[string]string{Platform: sum}
		_, err := Open(context.Background(), &bad, "echo")
		if !errors.Is(err, plugins.ErrPluginStart) || errors.Is(err, plugins.ErrStopped) != stopped {
			t.Errorf("a plugin that runs %q while it starts: %v, want ErrPluginStart, ErrStopped %v", script, err, stopped)
		}
	}
}

// A plugin whose binary changed while it ran cannot be opened again after
// a crash: that is permanent (ErrChecksum, ErrPluginStart), even though
// the process that ran was the locked one.
func TestReopenRefusedAfterBinaryChanged(t *testing.T) {
	dir := t.TempDir()
	bin := copyBinary(t, testPluginBin, dir)
	lock, err := Init(context.Background(), []Spec{{Name: "tp", Kind: plugins.KindTrainer, Source: bin}}, filepath.Join(dir, testLock), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(context.Background(), lock, "tp")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	orig, _ := os.ReadFile(bin)
	tmp := bin + ".new"
	if err := os.WriteFile(tmp, append(append([]byte{}, orig...), "patched"...), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "crashed")
	_, err = p.Trainer().Describe(context.Background(), &plugins.DescribeRequest{Config: map[string]any{"crash_once": marker}})
	if !errors.Is(err, ErrPluginCrashed) {
		t.Fatalf("Describe that kills the plugin: %v, want ErrPluginCrashed", err)
	}
	if _, err := Open(context.Background(), lock, "tp"); !errors.Is(err, plugins.ErrChecksum) || !errors.Is(err, plugins.ErrPluginStart) {
		t.Errorf("opening it again: %v, want ErrChecksum and ErrPluginStart", err)
	}
}

func TestOpenUnknownPlugin(t *testing.T) {
	_, lock := openTest(t, "echo")
	_, err := Open(context.Background(), lock, "nope")
	if err == nil || !strings.Contains(err.Error(), `"nope" is not in the lock`) || !strings.Contains(err.Error(), "echo") {
		t.Errorf("err = %v", err)
	}
}

func pidOf(t *testing.T, p *Plugin) string {
	t.Helper()
	d, err := p.Trainer().Describe(context.Background(), &plugins.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Knobs[1].Default
}

// A call whose process dies reports a *CrashError naming the call; the
// host does not restart the process (the runtime's supervisor does, by
// opening the plugin again), so every later call reports the crash too,
// and a new Open starts a fresh process.
func TestCrashIsReported(t *testing.T) {
	p, lock := openTest(t, "tp")
	ctx := context.Background()
	pid0 := pidOf(t, p)

	marker := filepath.Join(t.TempDir(), "crashed")
	_, err := p.Trainer().Describe(ctx, &plugins.DescribeRequest{Config: map[string]any{"crash_once": marker}})
	var ce *CrashError
	if !errors.Is(err, ErrPluginCrashed) || !errors.As(err, &ce) || ce.Call != "Describe" || ce.Plugin != "tp" {
		t.Fatalf("Describe that kills the plugin: err = %v, want a CrashError of Describe", err)
	}
	if _, err := p.Trainer().Wait(ctx, &plugins.RunHandle{RunID: "r", Handle: "h"}); !errors.Is(err, ErrPluginCrashed) {
		t.Errorf("a call after the crash: %v, want ErrPluginCrashed", err)
	}
	if plugins.IsPermanent(err) {
		t.Errorf("a crash is not permanent: the supervisor opens the plugin again")
	}

	p2, err := Open(ctx, lock, "tp")
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	if pidOf(t, p2) == pid0 {
		t.Errorf("the reopened plugin runs as the old pid %s", pid0)
	}
	_, err = p2.Trainer().Start(ctx, &plugins.RunRequest{RunID: "crash"})
	if !errors.As(err, &ce) || ce.Call != "Start" {
		t.Errorf("Start that kills the plugin: err = %v, want a CrashError of Start", err)
	}

	pl, err := Open(ctx, lock, "tp-llm")
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	if _, err := pl.LLM().Complete(ctx, &plugins.CompleteRequest{Role: "crash"}); !errors.Is(err, ErrPluginCrashed) {
		t.Errorf("Complete that crashes: err = %v, want ErrPluginCrashed", err)
	}

	p.Close()
	if _, err := p.Trainer().Describe(ctx, &plugins.DescribeRequest{}); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: err = %v, want ErrClosed", err)
	}
}

// Calls in flight when the process dies, and calls after, all report the
// crash; none hangs and none is taken for an answer.
func TestConcurrentCallsSeeACrash(t *testing.T) {
	p, _ := openTest(t, "tp")
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "crashed")
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	var crashed atomic.Bool
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				if g == 0 && i == 10 {
					_, err := p.Trainer().Describe(ctx, &plugins.DescribeRequest{Config: map[string]any{"crash_once": marker}})
					errs <- err
					crashed.Store(true)
					continue
				}
				// Only a call begun after the crash was seen must report
				// it: one in flight may have had its answer already.
				after := crashed.Load()
				_, err := p.Trainer().Wait(ctx, &plugins.RunHandle{RunID: "r", Handle: "h"})
				if after {
					errs <- err
				} else if err != nil && !errors.Is(err, ErrPluginCrashed) {
					t.Errorf("call before the crash failed: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		n++
		if !errors.Is(err, ErrPluginCrashed) {
			t.Errorf("call after the crash: %v, want ErrPluginCrashed", err)
		}
	}
	if n == 0 {
		t.Fatal("no call came after the crash")
	}
}

func TestCancellationReachesPlugin(t *testing.T) {
	p, _ := openTest(t, "tp")
	proof := filepath.Join(t.TempDir(), "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := p.Trainer().Wait(ctx, &plugins.RunHandle{RunID: "r", Handle: "block:" + proof})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Wait: err = %v, want context.Canceled", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(proof)
		if err == nil {
			if string(b) != "context canceled" {
				t.Errorf("plugin saw %q, want context canceled", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the plugin never saw the cancellation")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if errors.Is(err, ErrPluginCrashed) {
		t.Errorf("a cancellation was taken for a crash")
	}
	// The plugin is still usable.
	pidOf(t, p)

	// A deadline comes back as context.DeadlineExceeded.
	proof2 := filepath.Join(t.TempDir(), "deadline")
	dctx, dcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer dcancel()
	if _, err := p.Trainer().Wait(dctx, &plugins.RunHandle{Handle: "block:" + proof2}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait past its deadline: err = %v, want DeadlineExceeded", err)
	}
}

func TestLogFile(t *testing.T) {
	_, lock := openTest(t, "echo")
	logPath := filepath.Join(t.TempDir(), "plugins.log")
	p, err := Open(context.Background(), lock, "tp", WithLogFile(logPath))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Trainer().Describe(context.Background(), &plugins.DescribeRequest{}); err != nil {
		t.Fatal(err)
	}
	// Both lines travel asynchronously (stderr pipe, stdio stream).
	var b []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ = os.ReadFile(logPath)
		if strings.Contains(string(b), "describe called") && strings.Contains(string(b), "plain stderr line") {
			if strings.ContainsAny(string(b), "\x1b\r") || !strings.Contains(string(b), `\x1b[2K\rforged`) {
				t.Errorf("the plugin's control characters reached the log raw:\n%q", b)
			}
			return
		}
	}
	t.Errorf("plugin log lacks the plugin's sdk.Logger or stderr line:\n%s", b)
}

func TestOpenAll(t *testing.T) {
	_, lock := openTest(t, "echo")
	s, err := OpenAll(context.Background(), lock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"tp", "tp-llm", "tp-bench", "echo", "echo-as-llm"} {
		if p, ok := s.Get(name); !ok || p.Name() != name {
			t.Errorf("Get(%q) = %v, %v", name, p, ok)
		}
	}
	p, _ := s.Get("tp-bench")
	if p.Kind() != plugins.KindBenchmark || p.Benchmark() == nil {
		t.Errorf("tp-bench: kind %q", p.Kind())
	}
	s.Close()
	if _, err := p.Benchmark().Tasks(context.Background(), &plugins.TasksRequest{}); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Set.Close: %v", err)
	}
}
