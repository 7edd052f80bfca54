package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// Options configure a pool.
type Options struct {
	// Concurrency is how many jobs run at once (default 1).
	Concurrency int
	// GPUIDs are the GPU ids handed out as CUDA_VISIBLE_DEVICES; empty
	// means CPU only, and jobs that ask for GPUs are refused.
	GPUIDs []string
	// KillGrace is the wait between SIGTERM and SIGKILL (default 10 s).
	KillGrace time.Duration
	// PollInterval is how often Wait checks a job started by another
	// process (default 1 s).
	PollInterval time.Duration
}

// GPUIDs returns the ids "0".."n-1".
func GPUIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	return ids
}

// Executor is a pool of local subprocesses. It is safe for concurrent use.
type Executor struct {
	opts Options

	mu      sync.Mutex
	running int
	free    []string      // free GPU ids
	changed chan struct{} // closed and replaced whenever a slot frees
	jobs    map[string]*proc
}

type proc struct {
	cmd       *exec.Cmd
	dir       string
	gpus      []string
	done      chan struct{}
	status    executor.Status
	cancelled bool
	timedOut  bool
}

var _ executor.Executor = (*Executor)(nil)

// New returns a pool.
func New(opts Options) *Executor {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = 10 * time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	return &Executor{
		opts:    opts,
		free:    append([]string(nil), opts.GPUIDs...),
		changed: make(chan struct{}),
		jobs:    map[string]*proc{},
	}
}

// Kind implements executor.Executor.
func (e *Executor) Kind() string { return executor.KindLocal }

// Submit waits for a free slot (and GPUs), starts the job's script in its
// own process group and returns the handle.
func (e *Executor) Submit(ctx context.Context, job *executor.Job) (string, error) {
	if err := job.Validate(); err != nil {
		return "", err
	}
	if job.GPUs > len(e.opts.GPUIDs) {
		return "", fmt.Errorf("job %q needs %d GPUs but the local executor has %d (executor.gpus)", job.Name, job.GPUs, len(e.opts.GPUIDs))
	}
	gpus, err := e.acquire(ctx, job.GPUs)
	if err != nil {
		return "", err
	}
	p, err := e.start(job, gpus)
	if err != nil {
		e.release(gpus)
		return "", err
	}
	id := strconv.Itoa(p.cmd.Process.Pid)
	e.mu.Lock()
	e.jobs[id] = p
	e.mu.Unlock()
	go e.reap(p, job.TimeLimit)
	return executor.Handle{Kind: executor.KindLocal, ID: id, Dir: job.Dir}.String(), nil
}

func (e *Executor) acquire(ctx context.Context, n int) ([]string, error) {
	for {
		e.mu.Lock()
		if e.running < e.opts.Concurrency && len(e.free) >= n {
			e.running++
			gpus := append([]string(nil), e.free[:n]...)
			e.free = e.free[n:]
			e.mu.Unlock()
			return gpus, nil
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

func (e *Executor) release(gpus []string) {
	e.mu.Lock()
	e.running--
	e.free = append(e.free, gpus...)
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

func (e *Executor) start(job *executor.Job, gpus []string) (*proc, error) {
	_ = os.Remove(filepath.Join(job.Dir, executor.ExitFile))
	wrapper := filepath.Join(job.Dir, ".assay-job.sh")
	if err := os.WriteFile(wrapper, []byte(executor.WrapperScript(job.Dir, job.Script, nil)), 0o755); err != nil {
		return nil, err
	}
	stdout, err := os.Create(job.Stdout)
	if err != nil {
		return nil, err
	}
	defer stdout.Close()
	stderr, err := os.Create(job.Stderr)
	if err != nil {
		return nil, err
	}
	defer stderr.Close()

	cmd := exec.Command("bash", wrapper)
	cmd.Dir = job.Dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// Its own process group, so Cancel and time limits reach every child.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A scrubbed environment: no secret of Assay's reaches the job.
	cmd.Env = append(executor.Scrub(os.Environ(), job.Pass), job.Env...)
	// An empty CUDA_VISIBLE_DEVICES hides every GPU: CPU-only jobs stay so.
	cmd.Env = append(cmd.Env, "CUDA_VISIBLE_DEVICES="+strings.Join(gpus, ","))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("job %q: %w", job.Name, err)
	}
	return &proc{cmd: cmd, dir: job.Dir, gpus: gpus, done: make(chan struct{})}, nil
}

func (e *Executor) reap(p *proc, limit time.Duration) {
	if limit > 0 {
		t := time.AfterFunc(limit, func() {
			e.mu.Lock()
			p.timedOut = true
			e.mu.Unlock()
			e.kill(p.cmd.Process.Pid)
		})
		defer t.Stop()
	}
	err := p.cmd.Wait()
	// Leftover background children of the script die with it.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)

	st := executor.Status{}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		st = executor.Status{State: executor.Lost, Reason: err.Error()}
	} else if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		st = executor.Status{State: executor.Failed, Signal: int(ws.Signal()), Reason: "killed by signal " + ws.Signal().String()}
	} else {
		st.ExitCode = p.cmd.ProcessState.ExitCode()
		st.State = executor.Completed
		if st.ExitCode != 0 {
			st.State = executor.Failed
			st.Reason = "exit code " + strconv.Itoa(st.ExitCode)
		}
	}
	e.mu.Lock()
	switch {
	case p.cancelled || executor.WasCancelled(p.dir):
		st.State, st.CancelledByUs, st.Reason = executor.Cancelled, true, "cancelled"
	case p.timedOut:
		st.State, st.Reason = executor.TimedOut, "time limit exceeded"
	}
	p.status = st
	e.mu.Unlock()
	close(p.done)
	e.release(p.gpus)
}

// kill sends SIGTERM to the process group, then SIGKILL after the grace
// period if it is still there.
func (e *Executor) kill(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	time.AfterFunc(e.opts.KillGrace, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
}

// Wait implements executor.Executor. For a job this pool started it waits
// on the process; for one started by an earlier process it polls the
// recorded exit code and whether the process is still alive.
func (e *Executor) Wait(ctx context.Context, handle string) (executor.Status, error) {
	h, err := parse(handle)
	if err != nil {
		return executor.Status{}, err
	}
	e.mu.Lock()
	p := e.jobs[h.ID]
	e.mu.Unlock()
	if p != nil {
		select {
		case <-ctx.Done():
			return executor.Status{}, ctx.Err()
		case <-p.done:
			e.mu.Lock()
			defer e.mu.Unlock()
			return p.status, nil
		}
	}
	pid, _ := strconv.Atoi(h.ID)
	for {
		if st, ok := exited(h.Dir); ok {
			return st, nil
		}
		if !alive(pid, h.Dir) {
			if st, ok := exited(h.Dir); ok {
				return st, nil
			}
			if executor.WasCancelled(h.Dir) {
				return executor.Status{State: executor.Cancelled, CancelledByUs: true, Reason: "cancelled"}, nil
			}
			return executor.Status{State: executor.Lost, Reason: "process " + h.ID + " is gone and left no exit code (killed, or the machine restarted)"}, nil
		}
		select {
		case <-ctx.Done():
			return executor.Status{}, ctx.Err()
		case <-time.After(e.opts.PollInterval):
		}
	}
}

func exited(dir string) (executor.Status, bool) {
	code, ok := executor.ReadExit(dir)
	if !ok {
		return executor.Status{}, false
	}
	st := executor.Status{State: executor.Completed, ExitCode: code}
	if code != 0 {
		st.State, st.Reason = executor.Failed, "exit code "+strconv.Itoa(code)
	}
	if executor.WasCancelled(dir) {
		st.State, st.CancelledByUs, st.Reason = executor.Cancelled, true, "cancelled"
	}
	return st, true
}

// alive reports whether pid runs and is the job's wrapper: its working
// directory is the job's, which guards against a reused pid.
func alive(pid int, dir string) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		// Field 3 is the state; Z is a zombie nobody has reaped yet.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil && dir != "" {
		return filepath.Clean(cwd) == filepath.Clean(dir)
	}
	return true
}

// Cancel implements executor.Executor.
func (e *Executor) Cancel(ctx context.Context, handle string) error {
	h, err := parse(handle)
	if err != nil {
		return err
	}
	executor.MarkCancelled(h.Dir)
	e.mu.Lock()
	p := e.jobs[h.ID]
	if p != nil {
		p.cancelled = true
	}
	e.mu.Unlock()
	pid, _ := strconv.Atoi(h.ID)
	if p != nil {
		select {
		case <-p.done:
			return nil
		default:
		}
		e.kill(pid)
		return nil
	}
	if !alive(pid, h.Dir) {
		return nil
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(e.opts.KillGrace)
	for alive(pid, h.Dir) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	return nil
}

func parse(handle string) (executor.Handle, error) {
	h, err := executor.ParseHandle(handle)
	if err != nil {
		return h, err
	}
	if h.Kind != executor.KindLocal {
		return h, fmt.Errorf("handle %q is not a local job", handle)
	}
	if _, err := strconv.Atoi(h.ID); err != nil {
		return h, fmt.Errorf("handle %q: job id %q is not a pid", handle, h.ID)
	}
	return h, nil
}
