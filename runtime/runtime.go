package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// Instance is one started plugin. Exactly the accessor of its kind returns
// non-nil.
type Instance interface {
	Trainer() plugins.Trainer
	LLM() plugins.LLM
	Benchmark() plugins.Benchmark
	Close() error
}

// Prober is an optional interface of an Instance: Probe checks that what
// the plugin talks to answers (an LLM plugin's endpoint), given the
// plugin block's config. The run's preflight probes every plugin that
// serves it, before any phase, so an unreachable server stops the run
// with one error naming it instead of failing call after call.
type Prober interface {
	Probe(ctx context.Context, config map[string]any) error
}

// Loader starts plugins. The runtime starts each plugin once per run and
// starts it again when it dies.
type Loader interface {
	Open(ctx context.Context, p *plan.Plugin) (Instance, error)
}

// LoaderFunc adapts a function to Loader.
type LoaderFunc func(ctx context.Context, p *plan.Plugin) (Instance, error)

// Open calls f.
func (f LoaderFunc) Open(ctx context.Context, p *plan.Plugin) (Instance, error) { return f(ctx, p) }

// Options configure Run.
type Options struct {
	// ID names the run; generated when empty.
	ID string
	// Dir holds runs, one directory per id (default .assay/runs).
	Dir string
	// Resume continues the run ID from its journal and its saved plan.
	Resume bool
	// Progress receives progress: a live line per phase on a terminal,
	// plain log lines otherwise. Nil: silent.
	Progress io.Writer
	// Plugins starts plugins.
	Plugins Loader
	// Variant picks a variant by name; empty runs the first.
	Variant string
	// Meta is recorded in the journal (e.g. the spec path).
	Meta map[string]string
	// Provenance is recorded in the journal when the run starts; a resume
	// keeps the first one.
	Provenance *Provenance
	// Retries is how often a failed plugin call or infrastructure-failed
	// real run is retried after restarting the plugin (default 2).
	Retries int
	// Clock is where the run reads the time: the wall-time cap, the run's
	// start, and the time of each journal event. Nil: the system clock. A
	// rehearsal gives a virtual clock that its simulated plugins advance.
	Clock Clock
	// Scratch marks a rehearsal: its journal's writes are left to the
	// operating system to sync (see journal.Options.NoSync). Never for a
	// run that spends a budget.
	Scratch bool
	// Journal, when set, keeps the run's journal in the process instead
	// of its journal.db (see journal.Memory): for a rehearsal whose
	// folder is removed when it ends. A resume given the same Journal
	// continues the run. Never for a run that spends a budget.
	Journal *journal.Memory
	// Replay, when set, takes the run's LLM answers (and policy updates,
	// and with Runs its real runs' results) from an earlier run's journal
	// (see Replay). A resume replays as the run began.
	Replay *Replay
}

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Result is the outcome of a run.
type Result struct {
	ID     string `json:"id"`
	Dir    string `json:"dir"`
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Cuts are the phases a budget cap stopped or shrank (state
	// stopped_at_cap), also when the run failed after them.
	Cuts   []PhaseCut `json:"cut_phases,omitempty"`
	Totals Totals     `json:"totals"`

	// Failures are, in state phase_failed, how the phase that ended the
	// run measured nothing, with the last distinct reasons.
	Failures []PhaseFailure `json:"failed_phases,omitempty"`

	// Best are, in source mode, each task's best program: a ref to check
	// out, and the repository it is in.
	Best []BestProgram `json:"best,omitempty"`
}

// Totals are a run's figures; a resumed run ends with the same totals as an
// uninterrupted one with the same seed.
type Totals struct {
	RealRuns      int     `json:"real_runs"` // reserved (budget-counted) real runs
	Finished      int     `json:"finished_runs"`
	Infeasible    int     `json:"infeasible_runs"`
	GPUHours      float64 `json:"gpu_hours"`
	USD           float64 `json:"usd"`
	LLMUSD        float64 `json:"llm_usd"`
	LLMCalls      int     `json:"llm_calls"`
	Steps         int     `json:"steps"`
	Candidates    int     `json:"candidates"`
	PolicyUpdates int     `json:"policy_updates"`
	Records       int     `json:"records"`
	BestGain      float64 `json:"best_real_gain"`
	// GPUHours and USD count each real run and update at what it held, as
	// the caps do. MeasuredGPUHours and MeasuredRunUSD charge each
	// finished real run, and each policy or critic update that ran a
	// trainer's command, what it measured (wall time x GPUs), at most its
	// hold (its hold when its duration is unknown); Overruns counts those
	// that measured more than they held, and OverrunGPUHours by how much
	// (see hours.go). MeasuredUpdateGPUHours and UpdateOverruns are the
	// updates' share.
	MeasuredGPUHours       float64 `json:"measured_gpu_hours"`
	MeasuredRunUSD         float64 `json:"measured_run_usd"`
	Overruns               int     `json:"overruns,omitempty"`
	OverrunGPUHours        float64 `json:"overrun_gpu_hours,omitempty"`
	MeasuredUpdateGPUHours float64 `json:"measured_update_gpu_hours,omitempty"`
	UpdateOverruns         int     `json:"update_overruns,omitempty"`
	// Measured is the same run in the estimate's terms.
	Measured *Measured `json:"measured,omitempty"`
}

// Run states.
const (
	StateRunning     = "running"
	StateFinished    = "finished"
	StateFailed      = "failed"
	StateInterrupted = "interrupted" // its process is gone without finishing
)

// Paths of a run's files.
const (
	JournalFile = "journal.db"
	PlanFile    = "plan.json"
	DefaultDir  = ".assay/runs"
)

var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// NewID returns a fresh run id: the time and a random suffix.
func NewID() string { return newID(time.Now()) }

func newID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// Run executes p (or, with opts.Resume, continues the run opts.ID with the
// plan saved in its directory, ignoring p).
func Run(ctx context.Context, p *plan.Plan, opts Options) (*Result, error) {
	if opts.Dir == "" {
		opts.Dir = DefaultDir
	}
	if opts.Retries == 0 {
		opts.Retries = 2
	}
	if opts.Plugins == nil {
		return nil, errors.New("runtime: no plugin loader")
	}
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	if opts.ID == "" {
		if opts.Resume {
			return nil, errors.New("runtime: resume needs a run id")
		}
		opts.ID = newID(opts.Clock.Now())
	}
	if !idRE.MatchString(opts.ID) {
		return nil, fmt.Errorf("run id %q: use letters, digits, '.', '_' and '-' (at most 64)", opts.ID)
	}
	dir := filepath.Join(opts.Dir, opts.ID)
	p, err := planOfRun(p, opts, dir)
	if err != nil {
		return nil, err
	}
	if err := runnable(p); err != nil {
		return nil, err
	}
	v, err := pickVariant(p, opts.Variant)
	if err != nil {
		return nil, err
	}
	j, err := journal.OpenWith(filepath.Join(dir, JournalFile), journal.Options{NoSync: opts.Scratch, Memory: opts.Journal})
	if err != nil {
		return nil, err
	}
	defer j.Close()
	if j.Meta(metaCriticEval, &criticEvalMeta{}) {
		return nil, fmt.Errorf("run %s is a critic evaluation: continue it with assay critic-eval --id %s", opts.ID, opts.ID)
	}
	j.SetClock(opts.Clock.Now)
	if v, err = resumedVariant(p, v, j, opts); err != nil {
		return nil, err
	}

	rep, err := openReplay(opts, j)
	if err != nil {
		return nil, err
	}
	if rep != nil {
		defer rep.close()
		opts.Plugins = rep.loader(opts.Plugins)
	}
	r := newService(ctx, v, j, dir, opts)
	r.replay = rep
	defer r.plugins.close()
	// A run is identified by the plan as it applies to its variant: the
	// variants of a sweep each have their own hash.
	hash := p.VariantHash(v.Name)
	if err := j.SetMeta("run", runMeta{ID: opts.ID, Plan: p.Name, Hash: hash, Variant: v.Name, Seed: v.Seed, PID: os.Getpid(), Meta: opts.Meta, Budget: v.Budget}); err != nil {
		return nil, err
	}
	if err := setProvenance(j, opts, p, hash); err != nil {
		return nil, err
	}
	// The wall-time cap counts from the run's first start, across resumes.
	if !j.Meta("started_at", &r.startedAt) {
		r.startedAt = opts.Clock.Now().UTC()
		if err := j.SetMeta("started_at", r.startedAt); err != nil {
			return nil, err
		}
	}
	_ = j.SetMeta("state", StateRunning)
	_ = j.SetMeta("reason", "") // an earlier interruption's reason no longer applies
	runErr := r.execute()
	res := &Result{ID: opts.ID, Dir: dir, State: StateFinished, Totals: r.totals(), Cuts: r.cuts.list(), Best: r.best}
	if len(res.Cuts) > 0 {
		res.State, res.Reason = StateStoppedAtCap, cutsReason(res.Cuts)
	}
	if len(r.failures) > 0 {
		res.State, res.Reason, res.Failures = StatePhaseFailed, failuresReason(r.failures), r.failures
	}
	if runErr != nil {
		res.State, res.Reason = StateFailed, runErr.Error()
		// A plugin stopped by a signal (Ctrl-C reaches the whole process
		// group) may end the run before its context sees the signal.
		if ctx.Err() != nil || errors.Is(runErr, plugins.ErrStopped) {
			res.State = StateInterrupted
		}
	}
	_ = j.SetMeta("totals", res.Totals)
	_ = j.SetMeta("state", res.State)
	_ = j.SetMeta("reason", res.Reason)
	_ = j.SetMeta("cap_cuts", res.Cuts)
	_ = j.SetMeta(metaPhaseFailures, res.Failures)
	r.progress.done(res)
	return res, runErr
}

// planOfRun is the plan a run executes: the one saved in its directory on
// resume, else p, checked and saved there before anything runs.
func planOfRun(p *plan.Plan, opts Options, dir string) (*plan.Plan, error) {
	planPath := filepath.Join(dir, PlanFile)
	if opts.Resume {
		b, err := os.ReadFile(planPath)
		if err != nil {
			return nil, fmt.Errorf("resume %s: no such run in %s (%v)", opts.ID, opts.Dir, err)
		}
		p = new(plan.Plan)
		if err := json.Unmarshal(b, p); err != nil {
			return nil, fmt.Errorf("resume %s: %s: %v", opts.ID, planPath, err)
		}
	} else {
		if p == nil {
			return nil, errors.New("runtime: nil plan")
		}
		if _, err := os.Stat(planPath); err == nil {
			return nil, fmt.Errorf("run %s already exists in %s; resume it with `assay resume %s` or choose another --id", opts.ID, opts.Dir, opts.ID)
		}
		// Refused before the run's directory exists: a run that cannot
		// begin must not hold its id.
		if err := runnable(p); err != nil {
			return nil, err
		}
		if _, err := pickVariant(p, opts.Variant); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		b, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(planPath, b); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// setProvenance journals the run's provenance once, on its first start.
func setProvenance(j *journal.Journal, opts Options, p *plan.Plan, hash string) error {
	if opts.Provenance == nil {
		return nil
	}
	var first Provenance
	if j.Meta(metaProvenance, &first) {
		return nil
	}
	pv := *opts.Provenance
	pv.PlanHash = hash
	if len(p.Variants) > 1 {
		pv.SweepHash = p.Hash
	}
	return j.SetMeta(metaProvenance, &pv)
}

type runMeta struct {
	ID      string            `json:"id"`
	Plan    string            `json:"plan"`
	Hash    string            `json:"hash"`
	Variant string            `json:"variant"`
	Seed    int64             `json:"seed"`
	PID     int               `json:"pid"`
	Meta    map[string]string `json:"meta,omitempty"`
	Budget  plan.Budget       `json:"budget"`
}

// resumedVariant is the variant a resumed run continues: the one its
// journal records, so the variants of a sweep never share a journal. A
// resume that names no variant takes the journal's; one that names
// another is refused.
func resumedVariant(p *plan.Plan, v *plan.Variant, j *journal.Journal, opts Options) (*plan.Variant, error) {
	var prev runMeta
	if !opts.Resume || !j.Meta("run", &prev) || prev.Variant == "" || prev.Variant == v.Name {
		return v, nil
	}
	if opts.Variant != "" {
		return nil, fmt.Errorf("run %s is variant %q, not %q: resume it without a variant, or as %q", opts.ID, prev.Variant, opts.Variant, prev.Variant)
	}
	return pickVariant(p, prev.Variant)
}

// runnable refuses, before any run starts, a plan the runtime cannot run
// as written: the compiler fills every default and refuses these, so a
// plan that breaks one was edited by hand or comes from another version,
// and the runtime refuses it rather than guess a value of its own. Each
// refusal is positioned at the spec block of the plan node it is about,
// where the plan records one.
func runnable(p *plan.Plan) error {
	for _, v := range p.Variants {
		bad := func(src sourced, format string, args ...any) error {
			return fmt.Errorf("%splan variant %s: "+format+"; compile the spec again with this version of assay", append([]any{sourcePrefix(src), v.Name}, args...)...)
		}
		if v.Executor.Concurrency < 1 {
			return bad(nil, "executor concurrency %d", v.Executor.Concurrency)
		}
		if err := runnableLoops(v, bad); err != nil {
			return err
		}
		if err := runnableTasks(v, bad); err != nil {
			return err
		}
		if err := runnableBodies(v, bad); err != nil {
			return err
		}
		for _, ro := range v.Roles {
			if ro.Concurrency < 1 {
				return bad(ro.Source, "role %q has concurrency %d", ro.Name, ro.Concurrency)
			}
		}
	}
	return nil
}

// refusal builds runnable's error about the plan node at src (nil: none).
type refusal func(src sourced, format string, args ...any) error

// runnableLoops refuses a loop without what its kind runs by.
func runnableLoops(v *plan.Variant, bad refusal) error {
	for _, l := range v.Loops {
		if l.Split == "" || l.Proposer == "" {
			return bad(l.Source, "loop %q has no split or no proposer", l.Name)
		}
		switch l.Kind {
		case "rl":
			if !(l.LearningRate > 0) {
				return fmt.Errorf("%sloop %q has no learning_rate, so its proposer policy cannot be updated; set learning_rate in the loop block (e.g. 0.5 for the offline proposer)", sourcePrefix(l.Source), l.Name)
			}
			if l.RolloutEvery < 1 || l.StatesPerStep < 1 || l.ProposalsPerState < 1 {
				return bad(l.Source, "loop %q has rollout_every %d, states %d, proposals_per_state %d", l.Name, l.RolloutEvery, l.StatesPerStep, l.ProposalsPerState)
			}
			// The steps to run are the plan's instruction; only a loop that
			// spends the budget may leave them open (0), for the budget to end.
			if l.RunSteps < 0 || (l.RunSteps == 0 && !l.UntilBudget) {
				return bad(l.Source, "loop %q has run_steps %d", l.Name, l.RunSteps)
			}
		case "evolution":
			if l.Islands < 1 || l.Rounds < 1 || l.Ideas < 1 || l.Verifications < 1 {
				return bad(l.Source, "loop %q has islands %d, rounds %d, ideas_per_round %d, verifications_per_round %d", l.Name, l.Islands, l.Rounds, l.Ideas, l.Verifications)
			}
		}
	}
	return nil
}

// runnableTasks refuses a task whose metric direction the plan does not
// state: the runtime takes no direction from elsewhere.
func runnableTasks(v *plan.Variant, bad refusal) error {
	for _, e := range v.Envs {
		for _, t := range e.Tasks {
			if t.Direction != plan.Minimize && t.Direction != plan.Maximize {
				return bad(e.Source, "task %q of environment %q has direction %q, not %q or %q", t.Name, e.Name, t.Direction, plan.Minimize, plan.Maximize)
			}
		}
	}
	return nil
}

// sourced is a plan node's source range (a diag.Range), named by what the
// runtime asks of it.
type sourced interface {
	Valid() bool
	String() string
}

// sourcePrefix is the "file:line:col: " prefix of an error about a plan
// node from src, or "" when the plan records no position for it.
func sourcePrefix(src sourced) string {
	if src == nil || !src.Valid() {
		return ""
	}
	return src.String() + ": "
}

func pickVariant(p *plan.Plan, name string) (*plan.Variant, error) { return p.Variant(name) }

// writeFileAtomic writes b to path, synced, through a temporary file of
// its own beside it: two processes writing one path (two runs storing the
// same criteria) each rename a whole file, and a crash leaves path as it
// was.
func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after the rename, there is nothing to remove
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// parallel runs fn(i) for i in [0, n) with at most conc in flight and
// returns the first error (all calls still finish).
func parallel(n, conc int, fn func(i int) error) error {
	if conc < 1 {
		conc = 1
	}
	if n == 1 || conc == 1 {
		for i := 0; i < n; i++ {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	// conc workers take the next index in turn: one goroutine per worker,
	// not per call, so a phase of many calls does not grow a fresh stack
	// for each.
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w := 0; w < min(conc, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	wg.Wait()
	return first
}
