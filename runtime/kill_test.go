package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assay-lang/assay/runtime"

	"github.com/google/go-cmp/cmp"
)

// killSpec is a small LM2LM run whose trainer is the test trainer plugin:
// 8 seed runs, 8 steps of 4 x 4 proposals, calibration rounds of 3 after
// steps 3 and 6, and Avg@2 on one holdout task, plus 4 baseline runs.
const killSpec = `
name = "kill"
seed = 3

plugin "trainer" {
  kind   = "trainer"
  source = %q
  config = { delay_ms = 300 }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { CPU = 1 }
}

environment "tiny" {
  trainer = plugin.trainer
  scale   = 0.1
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "CPU"
    gpus  = 1
    hours = 0.5
  }
  tasks {
    train   = 3
    holdout = 1
  }
}

role "proposer" {
  llm         = plugin.offline
  temperature = 1.0
  concurrency = 2
  tokens {
    in  = 1000
    out = 100
  }
  price {
    in  = 0.5
    out = 1
  }
}

role "rwm" {
  llm         = plugin.offline
  concurrency = 2
  tokens {
    in  = 1000
    out = 100
  }
  price {
    in  = 0.5
    out = 1
  }
}

role "builder" {
  llm         = plugin.offline
  concurrency = 2
  tokens {
    in  = 1000
    out = 100
  }
  price {
    in  = 0.5
    out = 1
  }
}

reward "rwm_gain" {
  source     = "predicted"
  predictor  = role.rwm
  normalize  = "scale"
  clip       = 6
  value      = "clip(predicted_gain / scale, -c, c) + diversity_bonus"
  infeasible = "-c"
  diversity {
    by     = "mechanism"
    weight = 0.2
  }
}

loop "policy" {
  preset              = "dapo"
  steps               = 8
  rollout_every       = 2
  states              = 4
  proposals_per_state = 4
  learning_rate       = 0.5
  reward              = reward.rwm_gain
}

records {
  seed_runs = 8
}

calibration {
  loop        = loop.policy
  after_steps = [3, 6]
  budget      = [3]
  select      = "top_rated"
}

evaluation {
  avg_at  = 2
  best_at = 2
}

budget {
  real_runs = 24
}

executor {
  kind        = "local"
  concurrency = 2
}
`

func moduleRoot(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// bins holds assay and the test trainer, built once per test binary: a
// run of these tests with -count=20 links them once, not 20 times.
var bins struct {
	once           sync.Once
	dir            string
	assay, trainer string
	err            error
}

// builtBinaries returns the paths of assay and the test trainer.
func builtBinaries(t *testing.T) (assay, trainer string) {
	t.Helper()
	bins.once.Do(func() {
		root := moduleRoot(t)
		if bins.dir, bins.err = os.MkdirTemp("", "assay-kill-test-"); bins.err != nil {
			return
		}
		bins.assay, bins.trainer = filepath.Join(bins.dir, "assay"), filepath.Join(bins.dir, "testtrainer")
		for pkg, out := range map[string]string{"./cmd/assay": bins.assay, "./plugins/internal/testtrainer": bins.trainer} {
			cmd := exec.Command("go", "build", "-o", out, pkg)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				bins.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
				return
			}
		}
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	return bins.assay, bins.trainer
}

// TestMain removes the binaries builtBinaries made.
func TestMain(m *testing.M) {
	code := m.Run()
	if bins.dir != "" {
		os.RemoveAll(bins.dir)
	}
	os.Exit(code)
}

type cli struct {
	t   *testing.T
	bin string
	dir string
	env []string
}

func (c *cli) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.env...)
	// Its own process group, so a kill takes the plugins with it, as a
	// crash of the machine would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

func (c *cli) run(args ...string) string {
	c.t.Helper()
	out, err := c.cmd(args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("assay %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// killAfter starts the command and sends its process group sig after d
// (SIGINT as Ctrl-C does, SIGTERM as a scheduler does, SIGKILL as a crash
// of the machine would); it reports whether the command was still running.
func (c *cli) killAfter(sig syscall.Signal, d time.Duration, args ...string) bool {
	cmd := c.cmd(args...)
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return false
	case <-time.After(d):
		syscall.Kill(-cmd.Process.Pid, sig)
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			c.t.Errorf("assay did not stop within a minute of %v", sig)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		return true
	}
}

func (c *cli) status(id string) *runtime.Status {
	var st runtime.Status
	if err := json.Unmarshal([]byte(c.run("status", "--json", id)), &st); err != nil {
		c.t.Fatal(err)
	}
	return &st
}

// TestKill9Resume builds assay and the test trainer, runs a small spec
// uninterrupted, then runs it again, interrupting it at random points
// several times and resuming it each time: with SIGKILL to its process
// group (a crash), SIGINT (Ctrl-C) and SIGTERM (a scheduler's stop). The
// totals must equal the uninterrupted run's, and no real run may have
// finished twice on the trainer's side (its run directories).
func TestKill9Resume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs plugins")
	}
	// Its runs mostly wait on the trainer's delays: it overlaps the
	// package's other tests, and its three signals each other (each its
	// own run id in the one folder).
	t.Parallel()
	dir := t.TempDir()
	bin, trainer := builtBinaries(t)
	c := &cli{t: t, bin: bin, dir: dir}
	if err := os.WriteFile(filepath.Join(dir, "kill.hcl"), []byte(fmt.Sprintf(killSpec, trainer)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.run("init", "kill.hcl")
	c.run("run", "-q", "--id", "ref", "kill.hcl")
	want := c.status("ref")
	if want.State != runtime.StateFinished || want.Totals == nil || want.RealRuns < 15 {
		t.Fatalf("reference run: %+v", want)
	}

	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := &cli{t: t, bin: c.bin, dir: c.dir, env: c.env}
			interruptAndResume(t, c, sig, want)
		})
	}
}

// interruptAndResume runs the kill spec as run "k-SIG", interrupting it
// with sig at random points and resuming it, until it finishes; its totals
// must equal want's.
func interruptAndResume(t *testing.T, c *cli, sig syscall.Signal, want *runtime.Status) {
	dir := c.dir
	id := fmt.Sprintf("k-%d", int(sig))
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("interruptions drawn with seed %d", seed)
	args := []string{"run", "-q", "--id", id, "kill.hcl"}
	kills := 0
	for i := 0; i < 6; i++ {
		d := time.Duration(200+rng.IntN(2000)) * time.Millisecond
		if !c.killAfter(sig, d, args...) {
			break // it finished before the kill
		}
		kills++
		if _, err := os.Stat(filepath.Join(dir, runtime.DefaultDir, id, runtime.JournalFile)); errors.Is(err, fs.ErrNotExist) && args[0] == "run" {
			// Killed before the run made its journal (a loaded machine
			// can take longer than the shortest delay to start): nothing
			// was journaled, so the run starts afresh.
			continue
		}
		st := c.status(id)
		if st.State == runtime.StateEmpty && args[0] == "run" {
			// Killed as it made its journal, before the first write:
			// status says to start it again, as a user would.
			continue
		}
		if st.State == runtime.StateFinished {
			// The signal came as the run was ending: it finished anyway
			// (with SIGKILL, after the journal committed the finish and
			// before the process exited). The totals below still decide.
			args = nil
			break
		}
		if st.State != runtime.StateInterrupted {
			t.Fatalf("after %v %d the run is %q (%s), want interrupted", sig, kills, st.State, st.Reason)
		}
		args = []string{"resume", "-q", id}
	}
	if kills == 0 {
		t.Fatal("the run was never killed")
	}
	if len(args) > 0 {
		c.run(args...) // resume, or run when no kill found it started
	}
	got := c.status(id)
	if got.State != runtime.StateFinished {
		t.Fatalf("after %d kills and resumes the run is %q: %s", kills, got.State, got.Reason)
	}
	if d := cmp.Diff(want.Totals, got.Totals); d != "" {
		t.Errorf("after %d kills, totals differ from the uninterrupted run (-want +got):\n%s", kills, d)
	}
	if got.RealRuns != want.RealRuns || got.Finished != want.Finished {
		t.Errorf("real runs %d (finished %d), want %d (%d)", got.RealRuns, got.Finished, want.RealRuns, want.Finished)
	}
	// The trainer's side: every finished run completed exactly once.
	work := filepath.Join(dir, runtime.DefaultDir, id, "work")
	runs, err := os.ReadDir(work)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, r := range runs {
		again, _ := filepath.Glob(filepath.Join(work, r.Name(), "done.again.*"))
		if len(again) > 0 {
			t.Errorf("run %s completed more than once", r.Name())
		}
		if _, err := os.Stat(filepath.Join(work, r.Name(), "done")); err == nil {
			done++
		}
	}
	if done != got.Finished {
		t.Errorf("the trainer completed %d runs, the journal has %d finished", done, got.Finished)
	}
	t.Logf("%d kills; %d real runs (%d re-executed: their trainer process died with them in flight), %d LLM calls", kills, got.RealRuns, got.ReExecutions, got.Totals.LLMCalls)
}

// TestPluginProcessCrash makes the trainer plugin's process exit in the
// middle of a Start call; the runtime restarts it, retries the call and
// the run ends with the same totals as a run without the crash.
func TestPluginProcessCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs plugins")
	}
	t.Parallel()
	dir := t.TempDir()
	bin, trainer := builtBinaries(t)
	c := &cli{t: t, bin: bin, dir: dir}
	spec := fmt.Sprintf(killSpec, trainer)
	os.WriteFile(filepath.Join(dir, "ok.hcl"), []byte(spec), 0o644)
	crashing := strings.Replace(spec, "config = { delay_ms = 300 }", `config = { delay_ms = 20, crash_run = "seed/tiny/3" }`, 1)
	if crashing == spec {
		t.Fatal("spec template changed")
	}
	os.WriteFile(filepath.Join(dir, "crash.hcl"), []byte(crashing), 0o644)
	c.run("run", "-q", "--id", "ok", "ok.hcl")
	c.run("run", "-q", "--id", "crash", "crash.hcl")
	if _, err := os.Stat(filepath.Join(dir, runtime.DefaultDir, "crash", "work", "seed_tiny_3.crashed")); err != nil {
		t.Fatal("the trainer did not crash:", err)
	}
	want, got := c.status("ok"), c.status("crash")
	if got.State != runtime.StateFinished {
		t.Fatalf("crashed run is %q: %s", got.State, got.Reason)
	}
	if d := cmp.Diff(want.Totals, got.Totals); d != "" {
		t.Errorf("a plugin crash changed the totals (-without +with):\n%s", d)
	}
	log, _ := os.ReadFile(filepath.Join(dir, runtime.DefaultDir, "crash", "plugins.log"))
	t.Logf("plugins.log: %d bytes", len(log))
}
