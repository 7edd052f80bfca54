package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// Kinds of executor, as written in a spec's executor block.
const (
	KindLocal = "local"
	KindSlurm = "slurm"
)

// Job is one script to run.
type Job struct {
	// Name labels the job (the Slurm job name); the run id.
	Name string
	// Dir is the job's working directory: the script runs there and the
	// executor keeps its bookkeeping files there.
	Dir string
	// Script is the path of the bash script to run.
	Script string
	// Stdout and Stderr are the files the script's output goes to.
	Stdout, Stderr string
	// GPUs the job needs (0: CPU only).
	GPUs int
	// TimeLimit bounds the job's wall time (0: none).
	TimeLimit time.Duration
	// Env holds extra KEY=VALUE pairs for the script.
	Env []string
	// Pass names variables the job inherits from the environment it is
	// started from, besides BaseEnv; nothing else is inherited.
	Pass []string
}

// Validate reports a job that cannot be submitted.
func (j *Job) Validate() error {
	switch {
	case j.Dir == "" || !filepath.IsAbs(j.Dir):
		return fmt.Errorf("job %q: Dir must be an absolute path, got %q", j.Name, j.Dir)
	case j.Script == "":
		return fmt.Errorf("job %q: no script", j.Name)
	case j.GPUs < 0:
		return fmt.Errorf("job %q: negative GPU count %d", j.Name, j.GPUs)
	case j.TimeLimit < 0:
		return fmt.Errorf("job %q: negative time limit", j.Name)
	}
	for _, k := range j.Pass {
		if !isName(k) {
			return fmt.Errorf("job %q: environment variable name %q is not letters, digits and _", j.Name, k)
		}
	}
	for _, kv := range j.Env {
		// The wrapper script exports each pair: the key is written as it is.
		k, _, _ := strings.Cut(kv, "=")
		if !isName(k) {
			return fmt.Errorf("job %q: environment variable name %q is not letters, digits and _", j.Name, k)
		}
	}
	return nil
}

// BaseEnv names the variables a job inherits from the process that starts
// it: what programs need to run at all. Nothing else is inherited, so a
// secret in Assay's environment (OPENAI_API_KEY) never reaches a job; what
// a job needs more, the spec passes explicitly: values in the command
// trainer's config.env (exported by run.sh), names in its config.pass_env
// (Job.Pass).
var BaseEnv = pluginconfig.JobBaseEnv

// Inherited lists the names a job inherits: BaseEnv and pass.
func Inherited(pass []string) []string {
	return append(append([]string{}, BaseEnv...), pass...)
}

// Scrub keeps the entries of environ (KEY=VALUE pairs) a job inherits:
// those of BaseEnv and pass.
func Scrub(environ, pass []string) []string {
	keep := map[string]bool{}
	for _, k := range Inherited(pass) {
		keep[k] = true
	}
	var out []string
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); keep[k] {
			out = append(out, kv)
		}
	}
	return out
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// State is how a job ended (or that it has not yet).
type State string

const (
	Pending   State = "pending"
	Running   State = "running"
	Completed State = "completed" // exit code 0
	Failed    State = "failed"    // non-zero exit code or killed by a signal
	TimedOut  State = "timeout"   // the executor's time limit
	Cancelled State = "cancelled" // Cancel, or scancel by someone else
	Preempted State = "preempted" // the scheduler took the resources back (preemption, node or boot failure)
	Lost      State = "lost"      // the job vanished without leaving an exit status
)

// Done reports whether s is final.
func (s State) Done() bool { return s != Pending && s != Running }

// Status is a job's state with what is known about how it ended.
type Status struct {
	State    State
	ExitCode int
	Signal   int
	// Reason is the executor's own explanation (Slurm's Reason, a signal name).
	Reason string
	// CancelledByUs is true when Cancel was called on this job (by this
	// process or an earlier one), as opposed to an administrator's scancel.
	CancelledByUs bool
}

// Executor runs jobs.
type Executor interface {
	Kind() string
	// Submit starts (or queues) the job and returns its handle once the job
	// is under way; for a scheduler, once it is submitted.
	Submit(ctx context.Context, job *Job) (string, error)
	// Wait blocks until the job ends, then reports how. It works on a handle
	// from an earlier process, re-attaching without resubmitting.
	Wait(ctx context.Context, handle string) (Status, error)
	// Cancel stops the job and everything it started.
	Cancel(ctx context.Context, handle string) error
}

// ArraySubmitter is implemented by executors that can submit several
// independent jobs at once (a Slurm job array). Handles come back in order.
type ArraySubmitter interface {
	SubmitArray(ctx context.Context, jobs []*Job) ([]string, error)
}

// Handle is a parsed handle "KIND:ID[@DIR]". The directory is optional and
// lets a fresh process find a job's bookkeeping files.
type Handle struct {
	Kind string
	ID   string
	Dir  string
}

func (h Handle) String() string {
	s := h.Kind + ":" + h.ID
	if h.Dir != "" {
		s += "@" + h.Dir
	}
	return s
}

// ParseHandle parses "KIND:ID[@DIR]".
func ParseHandle(s string) (Handle, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok || kind == "" || rest == "" {
		return Handle{}, fmt.Errorf("malformed run handle %q: want KIND:ID", s)
	}
	id, dir, _ := strings.Cut(rest, "@")
	if id == "" {
		return Handle{}, fmt.Errorf("malformed run handle %q: empty id", s)
	}
	return Handle{Kind: kind, ID: id, Dir: dir}, nil
}

// Bookkeeping files an executor keeps in a job's directory.
const (
	// ExitFile holds the script's exit code, written by the wrapper when
	// the script returns, so a fresh process can learn how a job ended.
	ExitFile = ".assay-exit"
	// CancelFile marks a job Cancel was called on.
	CancelFile = ".assay-cancelled"
)

// WrapperScript returns a bash script that exports env (KEY=VALUE pairs),
// runs script in dir and records its exit code in dir/ExitFile (atomically,
// via a rename).
func WrapperScript(dir, script string, env []string) string {
	q := Quote
	var exports strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		exports.WriteString("export " + k + "=" + q(v) + "\n")
	}
	return "#!/usr/bin/env bash\n" + exports.String() +
		"cd " + q(dir) + " || exit 1\n" +
		"bash " + q(script) + "\n" +
		"rc=$?\n" +
		"echo $rc > " + q(filepath.Join(dir, ExitFile+".tmp")) + " && mv -f " +
		q(filepath.Join(dir, ExitFile+".tmp")) + " " + q(filepath.Join(dir, ExitFile)) + "\n" +
		"exit $rc\n"
}

// ReadExit reads the exit code the wrapper recorded in dir, if any.
func ReadExit(dir string) (code int, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, ExitFile))
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false
	}
	return n, true
}

// MarkCancelled records that Cancel was called on the job in dir.
func MarkCancelled(dir string) {
	if dir != "" {
		_ = os.WriteFile(filepath.Join(dir, CancelFile), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
	}
}

// WasCancelled reports whether Cancel was called on the job in dir.
func WasCancelled(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, CancelFile))
	return err == nil
}

// Quote quotes s for bash unless it is made only of characters that need no
// quoting.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=+,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
