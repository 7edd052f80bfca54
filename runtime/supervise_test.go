package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// crashingLLM is a plugin process whose every call kills it, with a cause
// on stderr, as the host reports it (plugins.ErrCrashed).
type crashingLLM struct {
	calls *atomic.Int64
	dead  atomic.Bool
}

func (c *crashingLLM) Complete(context.Context, *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	c.calls.Add(1)
	c.dead.Store(true)
	return nil, fmt.Errorf("%w: EOF; its stderr ended with: panic: index out of range", plugins.ErrCrashed)
}

func (c *crashingLLM) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, plugins.ErrUnsupported
}

// liveInst is an instance that says whether its process is alive, as the
// host's plugins do.
type liveInst struct {
	l     plugins.LLM
	alive func() bool
}

func (i *liveInst) Trainer() plugins.Trainer     { return nil }
func (i *liveInst) LLM() plugins.LLM             { return i.l }
func (i *liveInst) Benchmark() plugins.Benchmark { return nil }
func (i *liveInst) Close() error                 { return nil }
func (i *liveInst) Alive() bool                  { return i.alive() }

// TestCrashingPluginRestartsAreBounded: an LLM plugin that dies on every
// call is started again at most maxRestarts times, however many calls are
// in flight, and the run stops with the crash's cause, said once per
// restart in the progress and once in the error.
func TestCrashingPluginRestartsAreBounded(t *testing.T) {
	var opens, calls atomic.Int64
	tr := newFakeTrainer()
	l := LoaderFunc(func(_ context.Context, p *plan.Plugin) (Instance, error) {
		if p.Kind == plugins.KindTrainer {
			return &inst{t: tr}, nil
		}
		opens.Add(1)
		c := &crashingLLM{calls: &calls}
		return &liveInst{l: c, alive: func() bool { return !c.dead.Load() }}, nil
	})
	var progress bytes.Buffer
	_, err := Run(context.Background(), lm2lmPlan(), Options{ID: "c", Dir: t.TempDir(), Plugins: l, Progress: &progress})
	if err == nil {
		t.Fatal("a run whose LLM dies on every call succeeded")
	}
	if n := opens.Load(); n != 1+maxRestarts {
		t.Errorf("the LLM plugin was started %d times, want 1 + %d restarts", n, maxRestarts)
	}
	if !isPermanent(err) || strings.Count(err.Error(), "panic: index out of range") != 1 || !strings.Contains(err.Error(), "crashed 4 times in a row") {
		t.Errorf("the run's error does not name the crash once: %v", err)
	}
	out := progress.String()
	if n := strings.Count(out, "starting it again"); n != maxRestarts {
		t.Errorf("%d restart lines, want %d:\n%s", n, maxRestarts, out)
	}
	var causes int
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "starting it again") && strings.Contains(line, "panic: index out of range") {
			causes++
		}
	}
	if causes != 1 {
		t.Errorf("the restarts named the cause %d times, want once:\n%s", causes, out)
	}
	if tr.started() != 0 {
		t.Errorf("%d real runs started on proposals no LLM made", tr.started())
	}
}

// failingLLM answers every call with an error from a live process (an
// endpoint that refuses).
type failingLLM struct{ calls atomic.Int64 }

func (f *failingLLM) Complete(context.Context, *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	f.calls.Add(1)
	return nil, errors.New("http://127.0.0.1:1/v1: gave up after 6 attempts: connection refused")
}

func (f *failingLLM) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, plugins.ErrUnsupported
}

// TestAnsweredErrorKeepsThePlugin: a call that fails on a live process is
// the plugin's answer: the process is not killed under the calls in flight
// (which then all failed with EOF, each reported as a crash), and no
// restart is reported.
func TestAnsweredErrorKeepsThePlugin(t *testing.T) {
	var opens atomic.Int64
	f := &failingLLM{}
	tr := newFakeTrainer()
	l := LoaderFunc(func(_ context.Context, p *plan.Plugin) (Instance, error) {
		if p.Kind == plugins.KindTrainer {
			return &inst{t: tr}, nil
		}
		opens.Add(1)
		return &liveInst{l: f, alive: func() bool { return true }}, nil
	})
	var progress bytes.Buffer
	_, err := Run(context.Background(), lm2lmPlan(), Options{ID: "a", Dir: t.TempDir(), Plugins: l, Progress: &progress})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v, want the refused connection", err)
	}
	if opens.Load() != 1 {
		t.Errorf("the LLM plugin was started %d times, want once", opens.Load())
	}
	if strings.Contains(progress.String(), "starting it again") || strings.Contains(progress.String(), "crash") {
		t.Errorf("an answered error was reported as a crash:\n%s", progress.String())
	}
}

// probedInst is an LLM instance whose endpoint does not answer the
// preflight's probe.
type probedInst struct {
	liveInst
	probes *atomic.Int64
}

func (p *probedInst) Probe(_ context.Context, cfg map[string]any) error {
	p.probes.Add(1)
	return fmt.Errorf("the endpoint %v does not answer: connection refused", cfg["base_url"])
}

// TestPreflightProbe: an unreachable endpoint stops the run in its
// preflight, before any phase: one error naming it, no LLM call, no real
// run, and the probe is not retried.
func TestPreflightProbe(t *testing.T) {
	var probes atomic.Int64
	f := &failingLLM{}
	tr := newFakeTrainer()
	l := LoaderFunc(func(_ context.Context, p *plan.Plugin) (Instance, error) {
		if p.Kind == plugins.KindTrainer {
			return &inst{t: tr}, nil
		}
		return &probedInst{liveInst{l: f, alive: func() bool { return true }}, &probes}, nil
	})
	p := lm2lmPlan()
	p.Variants[0].Plugins[1].Config = map[string]any{"base_url": "http://127.0.0.1:1/v1"}
	var progress bytes.Buffer
	res, err := Run(context.Background(), p, Options{ID: "p", Dir: t.TempDir(), Plugins: l, Progress: &progress})
	if err == nil || !strings.Contains(err.Error(), "preflight: plugin llm: the endpoint http://127.0.0.1:1/v1 does not answer") {
		t.Fatalf("err = %v, want the preflight's", err)
	}
	if probes.Load() != 1 || f.calls.Load() != 0 || tr.started() != 0 || res.Totals.LLMCalls != 0 {
		t.Errorf("%d probes (want 1), %d LLM calls, %d real runs: want none", probes.Load(), f.calls.Load(), tr.started())
	}
	if strings.Contains(progress.String(), "phase ") {
		t.Errorf("a phase began:\n%s", progress.String())
	}
}

// stoppedLLM's process is ended by a stop signal on its first call, as
// Ctrl-C ends every process of the group, before the run's own context
// has seen the signal.
type stoppedLLM struct{ crashingLLM }

func (c *stoppedLLM) Complete(context.Context, *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	c.calls.Add(1)
	c.dead.Store(true)
	return nil, errors.Join(plugins.ErrCrashed, plugins.ErrStopped, errors.New("EOF (signal: interrupt)"))
}

// TestPluginStoppedBySignalInterrupts: a run that a plugin's stop signal
// ends is interrupted, resumable, not failed.
func TestPluginStoppedBySignalInterrupts(t *testing.T) {
	var calls atomic.Int64
	l := LoaderFunc(func(_ context.Context, p *plan.Plugin) (Instance, error) {
		if p.Kind == plugins.KindTrainer {
			return &inst{t: newFakeTrainer()}, nil
		}
		c := &stoppedLLM{crashingLLM{calls: &calls}}
		return &liveInst{l: c, alive: func() bool { return !c.dead.Load() }}, nil
	})
	res, err := Run(context.Background(), lm2lmPlan(), Options{ID: "s", Dir: t.TempDir(), Plugins: l})
	if err == nil || res == nil || res.State != StateInterrupted {
		t.Fatalf("a run whose LLM was stopped by a signal: %+v, %v; want interrupted", res, err)
	}
}
