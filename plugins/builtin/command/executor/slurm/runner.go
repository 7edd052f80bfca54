package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Runner runs one of Slurm's command-line tools (sbatch, squeue, sacct,
// scancel, scontrol) and returns what it printed on standard output. A tool
// that exits non-zero is a *CommandError. The executor sends every command
// through its Runner, so a test can put a scripted cluster behind it. A
// Runner must be comparable (a pointer, or a struct of comparable fields):
// the executors of a process that share one share a poller.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// CommandError is a tool that ran and failed: its exit status and what it
// printed, which is how Slurm's tools say why.
type CommandError struct {
	Name   string
	Err    error
	Output string // standard error, then standard output
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: %v: %s", e.Name, e.Err, strings.TrimSpace(e.Output))
}

func (e *CommandError) Unwrap() error { return e.Err }

// says reports whether err is a tool's failure whose output contains msg.
func says(err error, msg string) bool {
	var ce *CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Output, msg)
}

// unreachable reports an error that means no controller answered, so the
// request never reached one: sbatch may be sent again without a risk of a
// second job.
func unreachable(err error) bool {
	return says(err, "Unable to contact slurm controller")
}

// Bounds on what a tool may print: a listing of 250,000 jobs fits in
// maxStdout, and an error message needs no more than maxStderr.
const (
	maxStdout = 32 << 20
	maxStderr = 64 << 10
)

// commandTimeout bounds one command: squeue and sbatch give up on an
// unreachable controller after about 9 s, so a command still running after
// this has hung.
const commandTimeout = 2 * time.Minute

// toolRunner runs the tools found on PATH.
type toolRunner struct{}

func (toolRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	stdout, stderr := &capped{max: maxStdout}, &capped{max: maxStderr}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	if stdout.over {
		return nil, &CommandError{Name: name, Err: fmt.Errorf("printed more than %d bytes", maxStdout)}
	}
	if err != nil {
		return stdout.Bytes(), &CommandError{Name: name, Err: err, Output: stderr.String() + stdout.String()}
	}
	return stdout.Bytes(), nil
}

// capped keeps the first max bytes written to it and notes that there were
// more; it never fails a write, so the command runs to its end.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.over = true
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

// clock is the time the poller waits on; the simulated cluster's tests
// give it one of their own.
type clock interface {
	Now() time.Time
	After(time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
