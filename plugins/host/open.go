package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assay-lang/assay/base/version"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/grpcshim"
	"github.com/assay-lang/assay/plugins/sdk"
)

// ErrClosed is returned by calls on a closed plugin.
var ErrClosed = errors.New("plugin is closed")

// ChecksumError reports a plugin executable that differs from its lock.
type ChecksumError struct {
	Plugin string
	Path   string
	Locked string
	Actual string
	// Lock is the lock file ("" for a built-in, whose checksum is the
	// running assay binary's).
	Lock    string
	Builtin bool
}

func (e *ChecksumError) Error() string {
	if e.Builtin {
		return fmt.Sprintf("plugin %q: the assay executable %s has SHA-256 %s, but it had %s when this process started: "+
			"it was replaced while running; run the command again with the new binary", e.Plugin, e.Path, e.Actual, e.Locked)
	}
	return fmt.Sprintf("plugin %q: the executable %s has SHA-256 %s, but %s records %s for %s; "+
		"if you changed or rebuilt the plugin deliberately, run `assay init -upgrade=%s SPEC` to re-lock it, otherwise restore the locked executable",
		e.Plugin, e.Path, e.Actual, filepath.Base(e.Lock), e.Locked, Platform, e.Plugin)
}

// Unwrap makes errors.Is(err, plugins.ErrChecksum) and
// errors.Is(err, plugins.ErrPluginStart) true.
func (e *ChecksumError) Unwrap() []error { return []error{plugins.ErrChecksum, plugins.ErrPluginStart} }

// startErr marks an error that kept a plugin from starting as
// plugins.ErrPluginStart (permanent), unless it is our own cancellation.
func startErr(ctx context.Context, err error) error {
	if err == nil || errors.Is(err, plugins.ErrPluginStart) {
		return err
	}
	if ctx != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	return plugins.WithKind(plugins.ErrPluginStart, err)
}

// OpenOption tunes Open.
type OpenOption func(*openConfig)

type openConfig struct {
	logger  hclog.Logger
	closers []io.Closer // log files, closed with the plugin
	stderr  io.Writer
}

// WithLogger sends go-plugin's log and the plugin's stderr to l.
func WithLogger(l hclog.Logger) OpenOption { return func(c *openConfig) { c.logger = l } }

// WithLogFile appends go-plugin's log and the plugin's stderr to a file.
func WithLogFile(path string) OpenOption {
	return func(c *openConfig) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			// A log we cannot open must not stop a run; say so once.
			fmt.Fprintf(os.Stderr, "assay: cannot open plugin log %s: %v\n", path, err)
			return
		}
		c.logger = hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: printableLines{f}, Level: hclog.Debug})
		c.closers = append(c.closers, f)
	}
}

// printableLines writes each log entry (one Write, ending in a newline) with
// the plugin's text made printable (plugins.Printable): a plugin cannot put
// a control sequence or a forged line into the log.
type printableLines struct{ w io.Writer }

func (p printableLines) Write(b []byte) (int, error) {
	s := string(b)
	nl := strings.HasSuffix(s, "\n")
	s = plugins.Printable(strings.TrimSuffix(s, "\n"))
	if nl {
		s += "\n"
	}
	if _, err := io.WriteString(p.w, s); err != nil {
		return 0, err
	}
	return len(b), nil
}

// WithStderr copies the plugin's raw stderr to w as well.
func WithStderr(w io.Writer) OpenOption { return func(c *openConfig) { c.stderr = w } }

// Plugin is a resident plugin process. Its methods are safe for concurrent
// use. When the process dies, every later call returns a *CrashError; the
// caller opens the plugin again (the runtime's supervisor does).
type Plugin struct {
	locked LockedPlugin
	lock   *Lock
	path   string
	// image, for a built-in started from the running image (selfImage),
	// is what its process is executed from; path then names it.
	image string
	args  []string // for a built-in: the hidden plugin-mode arguments
	sum   []byte
	cfg   openConfig
	// stderr keeps the end of what the plugin's processes wrote to stderr
	// (a panic's message), for the crash it explains.
	stderr *tailWriter

	mu     sync.Mutex // guards cur and closed
	cur    *instance
	closed bool
	// noBatch is set once the plugin answered StartBatch with Unimplemented;
	// later batches go straight to one Start per run.
	noBatch atomic.Bool
}

// instance is one started process and the clients dispensed from it.
type instance struct {
	client  *plugin.Client
	cmd     *exec.Cmd // its ProcessState says how it exited, once it has
	trainer plugins.Trainer
	llm     plugins.LLM
	bench   plugins.Benchmark
}

// Open starts the locked plugin called name and returns its handle. Close
// it when the run ends. Every error that keeps the plugin from starting
// (not in the lock, missing binary, checksum mismatch, failed handshake) is
// plugins.ErrPluginStart; a checksum mismatch is also plugins.ErrChecksum
// (a *ChecksumError). Only a cancelled ctx gives ctx's error instead.
func Open(ctx context.Context, lock *Lock, name string, opts ...OpenOption) (*Plugin, error) {
	p, err := open(ctx, lock, name, opts)
	return p, startErr(ctx, err)
}

func open(ctx context.Context, lock *Lock, name string, opts []OpenOption) (*Plugin, error) {
	lp, ok := lock.Plugin(name)
	if !ok {
		var names []string
		for _, p := range lock.Plugins {
			names = append(names, p.Name)
		}
		return nil, fmt.Errorf("plugin %q is not in the lock (locked: %s): run `assay init` after adding it to the spec",
			name, strings.Join(names, ", "))
	}
	cfg := openConfig{logger: hclog.NewNullLogger()}
	for _, o := range opts {
		o(&cfg)
	}
	p := &Plugin{locked: lp, lock: lock, cfg: cfg, stderr: newTailWriter(stderrTail)}
	var hexSum string
	if bname, ok := lp.Builtin(); ok {
		if lp.AssayVersion != version.Release {
			return nil, &ReleaseError{Plugin: name, Locked: lp.AssayVersion, Actual: version.Release, Path: lock.path}
		}
		image, running, err := selfImage()
		if err == nil && !running {
			hexSum, err = SelfSHA256()
		}
		if err != nil {
			return nil, fmt.Errorf("plugin %q: %w", name, err)
		}
		p.path, _ = Self()
		p.args = []string{sdk.BuiltinArg, bname}
		if running {
			// Started from the running image itself, the kernel's
			// guarantee: nothing to verify, and no hash of the binary
			// on each start.
			p.image = image
			return p.started(ctx)
		}
	} else {
		var ok bool
		if hexSum, ok = lp.Checksums[Platform]; !ok {
			return nil, fmt.Errorf("plugin %q has no %s checksum in the lock (it was locked on %s): run `assay init SPEC` here to add it", name, Platform, platforms(lp))
		}
		p.path, _ = lock.BinaryPath(lp)
		if _, err := os.Stat(p.path); err != nil {
			return nil, fmt.Errorf("plugin %q: the locked executable %s is missing: restore it, or run `assay init -upgrade=%s SPEC` to lock another", name, p.path, name)
		}
	}
	sum, err := hex.DecodeString(hexSum)
	if err != nil || len(sum) != sha256.Size {
		return nil, fmt.Errorf("plugin %q: the lock's checksum %q is not a SHA-256 in hex: run `assay init -upgrade=%s SPEC` to rewrite the entry", name, hexSum, name)
	}
	p.sum = sum
	return p.started(ctx)
}

// started starts p's first process.
func (p *Plugin) started(ctx context.Context) (*Plugin, error) {
	if err := ctx.Err(); err != nil {
		p.closeLogs()
		return nil, err
	}
	inst, err := p.start()
	if err != nil {
		p.closeLogs()
		return nil, err
	}
	p.cur = inst
	return p, nil
}

func (p *Plugin) closeLogs() {
	for _, c := range p.cfg.closers {
		c.Close()
	}
	p.cfg.closers = nil
}

// start launches a process. go-plugin hashes the binary and compares it
// with the lock before it executes it (hashing a plugin binary costs about
// as much as starting it, so it is done once); only on a mismatch is the
// binary hashed again, to name its checksum in the error. A built-in
// started from the running image is not hashed: it is this binary.
func (p *Plugin) start() (*instance, error) {
	logger := p.cfg.logger.Named(p.locked.Name)
	cmd := exec.Command(p.path, p.args...)
	var secure *plugin.SecureConfig
	if p.image != "" {
		cmd.Path = p.image // the running image; Args[0] stays its path
	} else {
		secure = &plugin.SecureConfig{Checksum: p.sum, Hash: sha256.New()}
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  grpcshim.Handshake,
		VersionedPlugins: grpcshim.VersionedPlugins(grpcshim.PluginSet(nil, nil, nil)),
		Cmd:              cmd,
		SecureConfig:     secure,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger,
		Stderr:           p.stderrWriter(),
		// What plugin code prints to stdout or stderr after Serve arrives
		// over go-plugin's stdio stream; file it in the log too.
		SyncStdout: logger.Named("stdout").StandardWriter(&hclog.StandardLoggerOptions{ForceLevel: hclog.Info}),
		SyncStderr: io.MultiWriter(logger.Named("stderr").StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true}), p.stderr),
	})
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			actual, herr := FileSHA256(p.path)
			if herr != nil {
				actual = "(unreadable: " + herr.Error() + ")"
			}
			_, builtin := p.locked.Builtin()
			return nil, &ChecksumError{Plugin: p.locked.Name, Path: p.path, Locked: hex.EncodeToString(p.sum), Actual: actual, Lock: p.lock.path, Builtin: builtin}
		}
		// Kill returned after the process's Wait: ProcessState says how
		// it ended. One a stop signal ended (Ctrl-C reaches the whole
		// process group, and can land while the plugin starts) did not
		// fail to start: the run was stopped.
		if client.Exited() && cmd.ProcessState != nil && stopSignals[cmd.ProcessState.String()] {
			return nil, fmt.Errorf("plugin %q: starting %s: %w (%s): %w", p.locked.Name, p.path, plugins.ErrStopped, cmd.ProcessState, err)
		}
		return nil, fmt.Errorf("plugin %q: starting %s: %w", p.locked.Name, p.path, err)
	}
	inst := &instance{client: client, cmd: cmd}
	for kind, dst := range map[string]any{
		plugins.KindTrainer:   &inst.trainer,
		plugins.KindLLM:       &inst.llm,
		plugins.KindBenchmark: &inst.bench,
	} {
		raw, err := rpc.Dispense(kind)
		if err != nil {
			client.Kill()
			return nil, fmt.Errorf("plugin %q: %w", p.locked.Name, err)
		}
		switch d := dst.(type) {
		case *plugins.Trainer:
			*d = raw.(plugins.Trainer)
		case *plugins.LLM:
			*d = raw.(plugins.LLM)
		case *plugins.Benchmark:
			*d = raw.(plugins.Benchmark)
		}
	}
	return inst, nil
}

// get returns the live instance, or a *CrashError when its process has
// exited.
func (p *Plugin) get(call string) (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("plugin %q: %w", p.locked.Name, ErrClosed)
	}
	if p.cur == nil || p.cur.client.Exited() {
		return nil, p.crash(p.cur, call, errors.New("the plugin process has exited"))
	}
	return p.cur, nil
}

// crashed reports whether err came from inst's process dying rather than
// from the plugin answering with an error.
func (p *Plugin) crashed(ctx context.Context, inst *instance, err error) bool {
	if ctx.Err() != nil {
		return false // our own cancellation, not a crash
	}
	if inst.client.Exited() {
		return true
	}
	if status.Code(err) != codes.Unavailable {
		return false
	}
	// The connection broke; go-plugin notices the exit a moment later.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		if inst.client.Exited() {
			return true
		}
	}
	return false
}

// call runs f on the live instance, and reports a *CrashError when the
// process died during the call. It never repeats a call: whether a call is
// safe to repeat, and on which process, is the runtime's decision.
func call[T any](ctx context.Context, p *Plugin, name string, f func(*instance) (T, error)) (T, error) {
	var zero T
	inst, err := p.get(name)
	if err != nil {
		return zero, err
	}
	out, err := f(inst)
	// An error of a permanent kind is the plugin's answer, not a crash.
	if err == nil || plugins.IsPermanent(err) || !p.crashed(ctx, inst, err) {
		return out, err
	}
	return zero, p.crash(inst, name, err)
}

// Name returns the plugin's name.
func (p *Plugin) Name() string { return p.locked.Name }

// Kind returns the plugin's kind.
func (p *Plugin) Kind() string { return p.locked.Kind }

// Locked returns the plugin's lock entry.
func (p *Plugin) Locked() LockedPlugin { return p.locked }

// Close ends the plugin process. Calls after Close return ErrClosed.
func (p *Plugin) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if p.cur != nil {
		p.cur.client.Kill()
		p.cur = nil
	}
	p.closeLogs()
	return nil
}

// Trainer returns the plugin as a trainer, or nil when it is locked as
// another kind. (A binary locked as a trainer that serves no Trainer
// service answers every call with plugins.ErrUnsupported.)
func (p *Plugin) Trainer() plugins.Trainer {
	if p.locked.Kind != plugins.KindTrainer {
		return nil
	}
	return trainer{p}
}

// LLM returns the plugin as an LLM, or nil when it is locked as another
// kind.
func (p *Plugin) LLM() plugins.LLM {
	if p.locked.Kind != plugins.KindLLM {
		return nil
	}
	return llm{p}
}

// Benchmark returns the plugin as a benchmark, or nil when it is locked as
// another kind.
func (p *Plugin) Benchmark() plugins.Benchmark {
	if p.locked.Kind != plugins.KindBenchmark {
		return nil
	}
	return benchmark{p}
}

var (
	_ plugins.Trainer      = trainer{}
	_ plugins.BatchStarter = trainer{}
	_ plugins.LLM          = llm{}
	_ plugins.Benchmark    = benchmark{}
)

type trainer struct{ p *Plugin }

func (t trainer) Describe(ctx context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return call(ctx, t.p, "Describe", func(i *instance) (*plugins.DescribeResponse, error) {
		return i.trainer.Describe(ctx, req)
	})
}

// Start is never retried: the process may have started the run before it
// died, and only the runtime's journal knows what to do about that.
func (t trainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	return call(ctx, t.p, "Start", func(i *instance) (*plugins.RunHandle, error) {
		return i.trainer.Start(ctx, req)
	})
}

// StartBatch starts runs together when the plugin serves it, and otherwise
// (it answers plugins.ErrUnsupported) with one Start per run, in order.
// Like Start it is never retried: a crash mid-batch is a *CrashError, and
// the runtime, which journals the handles it got, starts the rest again
// under the same run ids. When the one-by-one fallback fails part way, the
// response comes back with the error and names the runs that started.
func (t trainer) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	if !t.p.noBatch.Load() {
		resp, err := call(ctx, t.p, "StartBatch", func(i *instance) (*plugins.BatchResponse, error) {
			bs, ok := i.trainer.(plugins.BatchStarter)
			if !ok {
				return nil, plugins.ErrUnsupported
			}
			return bs.StartBatch(ctx, req)
		})
		if !errors.Is(err, plugins.ErrUnsupported) {
			return resp, err
		}
		t.p.noBatch.Store(true)
		t.p.cfg.logger.Debug("plugin serves no StartBatch; starting runs one by one", "plugin", t.p.locked.Name)
	}
	out := &plugins.BatchResponse{Handles: make([]*plugins.RunHandle, len(req.Runs))}
	for i, r := range req.Runs {
		h, err := t.Start(ctx, r)
		if err != nil {
			return out, fmt.Errorf("run %s: %w", r.RunID, err)
		}
		out.Handles[i] = h
	}
	return out, nil
}

func (t trainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	return call(ctx, t.p, "Wait", func(i *instance) (*plugins.RunResult, error) {
		return i.trainer.Wait(ctx, h)
	})
}

// Cancel is retried: cancelling a run twice is harmless.
func (t trainer) Cancel(ctx context.Context, h *plugins.RunHandle) error {
	_, err := call(ctx, t.p, "Cancel", func(i *instance) (struct{}, error) {
		return struct{}{}, i.trainer.Cancel(ctx, h)
	})
	return err
}

type llm struct{ p *Plugin }

func (l llm) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	return call(ctx, l.p, "Complete", func(i *instance) (*plugins.CompleteResponse, error) {
		return i.llm.Complete(ctx, req)
	})
}

// Update is retried: it maps the request's State to a new one and keeps
// nothing in the process.
func (l llm) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return call(ctx, l.p, "Update", func(i *instance) (*plugins.UpdateResponse, error) {
		return i.llm.Update(ctx, req)
	})
}

type benchmark struct{ p *Plugin }

func (b benchmark) Tasks(ctx context.Context, req *plugins.TasksRequest) (*plugins.TasksResponse, error) {
	return call(ctx, b.p, "Tasks", func(i *instance) (*plugins.TasksResponse, error) {
		return i.bench.Tasks(ctx, req)
	})
}

// Set is the plugins of one lock, opened together for a run.
type Set struct {
	byName map[string]*Plugin
}

// OpenAll opens every plugin of the lock; on error it closes the ones it
// opened.
func OpenAll(ctx context.Context, lock *Lock, opts ...OpenOption) (*Set, error) {
	s := &Set{byName: map[string]*Plugin{}}
	for _, lp := range lock.Plugins {
		p, err := Open(ctx, lock, lp.Name, opts...)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.byName[lp.Name] = p
	}
	return s, nil
}

// Get returns the plugin called name.
func (s *Set) Get(name string) (*Plugin, bool) {
	p, ok := s.byName[name]
	return p, ok
}

// Close closes every plugin.
func (s *Set) Close() error {
	for _, p := range s.byName {
		p.Close()
	}
	return nil
}
