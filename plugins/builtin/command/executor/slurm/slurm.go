package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// Options are the sbatch settings of the spec's executor.slurm block.
type Options struct {
	Partition string
	Account   string
	QOS       string
	// TimeLimit is sbatch --time for jobs without their own limit, in any
	// form sbatch accepts ("4:00:00", "90", "1-00:00:00").
	TimeLimit string
	CPUs      int
	Memory    string
	// Array submits the independent runs of a batch as one job array.
	Array bool
	// GRES is the generic resource name GPUs are requested as (default
	// "gpu": --gres=gpu:N); a typed one reads e.g. "gpu:b200".
	GRES string
	// ExtraArgs are passed to sbatch as they are.
	ExtraArgs []string
	// PollInterval is the least time between two polls of the controller
	// (default 5 s); while nothing changes the poller waits up to 8 times
	// as long.
	PollInterval time.Duration
	// MaxRunning throttles a job array to this many tasks at once (sbatch
	// --array=0-N%MaxRunning), so a batch keeps executor.concurrency; 0 or
	// a value no smaller than the array sets no throttle. Not a key of the
	// executor.slurm block: the trainer sets it from executor.concurrency.
	MaxRunning int
	// Runner runs the Slurm tools (nil: those on PATH). Not a key of the
	// executor.slurm block either.
	Runner Runner
	clock  clock // nil: the wall clock; the simulated cluster's tests set one
}

// keys of the executor.slurm block this package reads, for error messages.
var keys = []string{"partition", "account", "qos", "time_limit", "cpus", "memory", "array", "gres", "extra_args", "poll_seconds"}

// ParseOptions reads the executor.slurm block (a map, as the plan carries
// it). An unknown key or a value of the wrong type is an error naming it.
func ParseOptions(m map[string]any) (Options, error) {
	var o Options
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := m[k]
		var err error
		switch k {
		case "partition":
			o.Partition, err = str(v)
		case "account":
			o.Account, err = str(v)
		case "qos":
			o.QOS, err = str(v)
		case "time_limit":
			o.TimeLimit, err = str(v)
		case "memory":
			o.Memory, err = str(v)
		case "gres":
			o.GRES, err = str(v)
		case "cpus":
			o.CPUs, err = integer(v)
		case "array":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("want true or false, got %T", v)
			}
			o.Array = b
		case "extra_args":
			o.ExtraArgs, err = strs(v)
			for _, a := range o.ExtraArgs {
				if a == "--requeue" || strings.HasPrefix(a, "--requeue=") {
					err = fmt.Errorf("%q: Assay starts a preempted run's next attempt itself, counted against the caps; a job Slurm requeued would run beside it", a)
				}
			}
		case "poll_seconds":
			o.PollInterval, err = seconds(v)
		default:
			return o, fmt.Errorf("executor.slurm.%s: unknown setting; known: %s", k, strings.Join(keys, ", "))
		}
		if err != nil {
			return o, fmt.Errorf("executor.slurm.%s: %v", k, err)
		}
	}
	return o, nil
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %T", v)
	}
	return s, nil
}

func integer(v any) (int, error) {
	switch n := v.(type) {
	case int:
		return n, nil
	case int64:
		return int(n), nil
	case float64:
		if n == math.Trunc(n) {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("want a whole number, got %v", v)
}

// seconds reads a number of seconds, at least one: the compiler refuses
// less, and a plan edited by hand gets the same answer.
func seconds(v any) (time.Duration, error) {
	var x float64
	switch n := v.(type) {
	case int:
		x = float64(n)
	case int64:
		x = float64(n)
	case float64:
		x = n
	default:
		return 0, fmt.Errorf("want a number of seconds, got %T", v)
	}
	if !(x >= 1 && x <= 86400) {
		return 0, fmt.Errorf("want between 1 and 86400 seconds, got %v", v)
	}
	return time.Duration(x * float64(time.Second)), nil
}

func strs(v any) ([]string, error) {
	switch l := v.(type) {
	case []string:
		return l, nil
	case []any:
		out := make([]string, len(l))
		for i, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: want a string, got %T", i, x)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of strings, got %T", v)
}

// Executor submits to the Slurm cluster the command-line tools reach.
type Executor struct {
	opts Options
	run  Runner
	poll *poller
}

var (
	_ executor.Executor       = (*Executor)(nil)
	_ executor.ArraySubmitter = (*Executor)(nil)
)

// New returns an executor.
func New(opts Options) *Executor {
	if opts.PollInterval <= 0 {
		opts.PollInterval = 5 * time.Second
	}
	if opts.GRES == "" {
		opts.GRES = "gpu"
	}
	if opts.Runner == nil {
		opts.Runner = toolRunner{}
	}
	if opts.clock == nil {
		opts.clock = wallClock{}
	}
	return &Executor{opts: opts, run: opts.Runner, poll: sharedPoller(opts.Runner, opts.clock, opts.PollInterval)}
}

// Kind implements executor.Executor.
func (e *Executor) Kind() string { return executor.KindSlurm }

// Available reports whether sinfo reaches a controller, and if not, why.
func Available(ctx context.Context) error {
	if _, err := exec.LookPath("sinfo"); err != nil {
		return fmt.Errorf("sinfo not found: Slurm's client tools are not installed")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// scontrol ping answers at once; sinfo retries for some 9 s before it
	// says that no controller answers.
	if out, err := exec.CommandContext(ctx, "scontrol", "ping").CombinedOutput(); err == nil || len(out) > 0 {
		if down := controllersDown(out); down != "" {
			return fmt.Errorf("no Slurm controller is up: %s", down)
		}
	}
	out, err := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%P %a").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sinfo reaches no Slurm controller: %v: %s", err, firstLine(out))
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return fmt.Errorf("sinfo lists no partition")
	}
	return nil
}

// controllersDown is scontrol ping's first line when it names a
// controller and none is UP; "" when one is UP, or the output is not
// scontrol ping's (then sinfo decides).
func controllersDown(out []byte) string {
	first, named := "", false
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "Slurmctld(") {
			continue
		}
		if strings.HasSuffix(l, " is UP") {
			return ""
		}
		if !named {
			first, named = l, true
		}
	}
	return first
}

// args are the sbatch options every job of a submission shares.
func (e *Executor) args(job *executor.Job) []string {
	// Only the base environment travels with the job (the wrapper script
	// exports job.Env): no secret of Assay's reaches it. --no-requeue: a
	// preempted job ends PREEMPTED and Assay starts the next attempt itself,
	// reserved against the caps; a job Slurm requeued on its own would run
	// beside that attempt, uncounted.
	a := []string{"--parsable", "--no-requeue", "--job-name=" + job.Name, "--export=" + strings.Join(executor.Inherited(job.Pass), ",")}
	if e.opts.Partition != "" {
		a = append(a, "--partition="+e.opts.Partition)
	}
	if e.opts.Account != "" {
		a = append(a, "--account="+e.opts.Account)
	}
	if e.opts.QOS != "" {
		a = append(a, "--qos="+e.opts.QOS)
	}
	if job.TimeLimit > 0 {
		// sbatch counts whole minutes; round up so a job never gets less.
		a = append(a, "--time="+strconv.Itoa(int(math.Ceil(job.TimeLimit.Minutes()))))
	} else if e.opts.TimeLimit != "" {
		a = append(a, "--time="+e.opts.TimeLimit)
	}
	if job.GPUs > 0 {
		a = append(a, "--gres="+e.opts.GRES+":"+strconv.Itoa(job.GPUs))
	}
	if e.opts.CPUs > 0 {
		a = append(a, "--cpus-per-task="+strconv.Itoa(e.opts.CPUs))
	}
	if e.opts.Memory != "" {
		a = append(a, "--mem="+e.opts.Memory)
	}
	return append(a, e.opts.ExtraArgs...)
}

// SbatchArgs returns the sbatch arguments Submit would use for job, so a
// caller can show or check them without a cluster.
func (e *Executor) SbatchArgs(job *executor.Job) []string {
	return append(e.args(job), "--chdir="+job.Dir, "--output="+job.Stdout, "--error="+job.Stderr,
		filepath.Join(job.Dir, ".assay-job.sh"))
}

func writeWrapper(job *executor.Job) error {
	_ = os.Remove(filepath.Join(job.Dir, executor.ExitFile))
	_ = os.Remove(filepath.Join(job.Dir, executor.CancelFile))
	return os.WriteFile(filepath.Join(job.Dir, ".assay-job.sh"),
		[]byte(executor.WrapperScript(job.Dir, job.Script, job.Env)), 0o755)
}

// Submit implements executor.Executor: one sbatch.
func (e *Executor) Submit(ctx context.Context, job *executor.Job) (string, error) {
	if err := job.Validate(); err != nil {
		return "", err
	}
	if err := writeWrapper(job); err != nil {
		return "", err
	}
	id, err := e.sbatch(ctx, e.SbatchArgs(job))
	if err != nil {
		return "", fmt.Errorf("job %q: %w", job.Name, err)
	}
	return executor.Handle{Kind: executor.KindSlurm, ID: id, Dir: job.Dir}.String(), nil
}

// ErrMixedArray is returned by SubmitArray when the jobs do not share the
// resources one job array requests; submit them one by one instead.
var ErrMixedArray = errors.New("jobs of one array must ask for the same GPUs, time limit and inherited environment")

// SubmitArray submits jobs as one job array (--array=0-N); task i runs
// jobs[i]. The handles are "slurm:ID_i@DIR".
func (e *Executor) SubmitArray(ctx context.Context, jobs []*executor.Job) ([]string, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	var script strings.Builder
	script.WriteString("#!/usr/bin/env bash\n# A job array of Assay runs: task i runs the i-th run's script.\ncase \"$SLURM_ARRAY_TASK_ID\" in\n")
	for i, j := range jobs {
		if err := j.Validate(); err != nil {
			return nil, err
		}
		if j.GPUs != jobs[0].GPUs || j.TimeLimit != jobs[0].TimeLimit || strings.Join(j.Pass, ",") != strings.Join(jobs[0].Pass, ",") {
			return nil, ErrMixedArray
		}
		if err := writeWrapper(j); err != nil {
			return nil, err
		}
		fmt.Fprintf(&script, "%d) exec bash %s >%s 2>%s ;;\n", i,
			executor.Quote(filepath.Join(j.Dir, ".assay-job.sh")), executor.Quote(j.Stdout), executor.Quote(j.Stderr))
	}
	script.WriteString("*) echo \"no run for array task $SLURM_ARRAY_TASK_ID\" >&2; exit 1 ;;\nesac\n")
	first := jobs[0]
	path := filepath.Join(first.Dir, ".assay-array.sh")
	if err := os.WriteFile(path, []byte(script.String()), 0o755); err != nil {
		return nil, err
	}
	spec := "--array=0-" + strconv.Itoa(len(jobs)-1)
	if m := e.opts.MaxRunning; m > 0 && m < len(jobs) {
		spec += "%" + strconv.Itoa(m)
	}
	args := append(e.args(first), spec, "--chdir="+first.Dir,
		"--output="+filepath.Join(first.Dir, "slurm-%A_%a.out"), path)
	id, err := e.sbatch(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("job array of %d runs: %w", len(jobs), err)
	}
	hs := make([]string, len(jobs))
	for i, j := range jobs {
		hs[i] = executor.Handle{Kind: executor.KindSlurm, ID: id + "_" + strconv.Itoa(i), Dir: j.Dir}.String()
	}
	return hs, nil
}

// submitPatience is how long a submission waits for an unreachable
// controller to answer again before it fails.
const submitPatience = 10 * time.Minute

// sbatch submits one job (or array). When no controller answers, nothing
// was submitted: it waits for the poller to reach the controller again and
// sends the same request, for up to submitPatience.
func (e *Executor) sbatch(ctx context.Context, args []string) (string, error) {
	patient, cancel := context.WithTimeout(ctx, submitPatience)
	defer cancel()
	for {
		out, err := e.run.Run(ctx, "sbatch", args...)
		if err == nil {
			// --parsable prints "ID" or "ID;CLUSTER".
			id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
			if !digits(id) {
				return "", fmt.Errorf("sbatch printed %q, not a job id", firstLine(out))
			}
			return id, nil
		}
		if !unreachable(err) {
			return "", err
		}
		if werr := e.poll.awaitUp(patient); werr != nil {
			return "", fmt.Errorf("%w (no controller answered for %s)", err, submitPatience)
		}
	}
}

// Wait implements executor.Executor: it adds the job to the process's
// poller and blocks until a poll finds it ended (or ctx ends). Many
// goroutines may wait at once, on jobs of this process or of an earlier one
// (re-attaching after a crash): each poll asks about all of them at once.
func (e *Executor) Wait(ctx context.Context, handle string) (executor.Status, error) {
	h, err := parse(handle)
	if err != nil {
		return executor.Status{}, err
	}
	w := e.poll.add(h)
	defer e.poll.drop(w)
	select {
	case <-w.done:
		st := w.st
		if st.State == executor.Cancelled && !st.CancelledByUs {
			st.CancelledByUs = executor.WasCancelled(h.Dir)
		}
		return st, nil
	case <-ctx.Done():
		return executor.Status{}, ctx.Err()
	}
}

// Cancel implements executor.Executor with scancel.
func (e *Executor) Cancel(ctx context.Context, handle string) error {
	h, err := parse(handle)
	if err != nil {
		return err
	}
	executor.MarkCancelled(h.Dir)
	// A cancel the controller did not answer was not made: like a
	// submission, it waits for the controller and goes again, or a job
	// Assay counts as stopped would run (and spend) on.
	patient, cancel := context.WithTimeout(ctx, submitPatience)
	defer cancel()
	for {
		_, err = e.run.Run(ctx, "scancel", h.ID)
		if err == nil || says(err, "Invalid job id") || says(err, "already completed") {
			break
		}
		if !unreachable(err) {
			return fmt.Errorf("scancel %s: %w", h.ID, err)
		}
		if werr := e.poll.awaitUp(patient); werr != nil {
			return fmt.Errorf("scancel %s: %w (no controller answered for %s)", h.ID, err, submitPatience)
		}
	}
	// The job ends soon: look one interval on, not after a backed-off one.
	e.poll.nudge()
	return nil
}

func parse(handle string) (executor.Handle, error) {
	h, err := executor.ParseHandle(handle)
	if err != nil {
		return h, err
	}
	if h.Kind != executor.KindSlurm {
		return h, fmt.Errorf("handle %q is not a Slurm job", handle)
	}
	id, task, hasTask := strings.Cut(h.ID, "_")
	if _, err := strconv.Atoi(id); err != nil {
		return h, fmt.Errorf("handle %q: %q is not a Slurm job id", handle, h.ID)
	}
	if _, err := strconv.Atoi(task); hasTask && err != nil {
		return h, fmt.Errorf("handle %q: %q is not an array task index", handle, task)
	}
	return h, nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
