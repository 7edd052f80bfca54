package runtime

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// realRun is one real run to execute.
type realRun struct {
	Key      string
	Task     *taskInfo
	Proposal plugins.Proposal
	// baseline marks the run that measures its task's baseline.
	baseline bool
	// lineage, for a candidate made against a parent, is journaled with
	// its reservation (the pairs export reads it).
	lineage *journal.Lineage
	// fix, for a source-mode candidate, is how a run that fails in its
	// code is repaired (repair.go); nil where nothing can repair it.
	fix *fixer
}

// outcome is a real run's result.
type outcome struct {
	Skipped    bool // not run: no budget (Why says which cap)
	Failed     bool // infrastructure failure after retries
	Why        string
	Infeasible bool
	// Errored: the run failed in the candidate's code (StatusError) and
	// no repair is left: the candidate crashes, so Infeasible is set too.
	Errored bool
	Metric  float64
	Gain    float64
	Result  *plugins.RunResult
	// Repaired is the program the outcome measured when it is not the
	// run's proposal: a repair of it (repair.go); nil otherwise.
	Repaired *plugins.Proposal
	// repairKey is the key of the repair's run that measured Repaired.
	repairKey string
}

// program is the program o measured: p, the run's proposal, or the
// repair of it that ran last.
func (o outcome) program(p plugins.Proposal) plugins.Proposal {
	if o.Repaired != nil {
		return *o.Repaired
	}
	return p
}

// retried reports whether a new attempt may change a run's result: an
// infrastructure failure or preemption, or an error in the program where
// nothing repairs it (knob mode, a baseline). A source-mode candidate's
// error is its code's: the same commit fails again, and only a repair
// (a new commit) changes it.
func (rr realRun) retried(status string) bool {
	switch status {
	case plugins.StatusFailed, plugins.StatusPreempted:
		return true
	case plugins.StatusError:
		return rr.fix == nil
	}
	return false
}

func (r *service) runCost(env string) (gpuh, usd float64) {
	e := r.envs[env]
	if e == nil {
		return 0, 0
	}
	// A run is held at the high figure of its assumed hours, so the caps
	// hold however long it takes within the assumption.
	gpuh = e.GPUHours.High
	return gpuh, gpuh * r.v.Prices[e.GPU]
}

// reserve reserves a run key against the budget and in the journal. It
// returns false (and reserves nothing) when the budget is spent. A key the
// journal already holds is counted already.
func (r *service) reserve(sc scope, key string, rr realRun) (bool, error) {
	env, task := rr.Task.Env, rr.Task.Name
	if _, ok := r.j.Run(key); ok {
		return true, nil
	}
	// Runs planned for later phases are held back from this one.
	if left := r.budget.RunsLeft(); left >= 0 && left <= sc.floor {
		return r.cuts.skip(sc, key, sc.realRunCapReason(r.budget.Caps().RealRuns, left)), nil
	}
	// The wall-time cap: no run starts that could end after it.
	if c := r.v.Budget.WallHours; c > 0 {
		if e := r.envs[env]; e != nil && r.opts.Clock.Now().Sub(r.startedAt).Hours()+e.Hours.High > c {
			return r.cuts.skip(sc, key, fmt.Sprintf("the wall-time cap of %g hours leaves no time for a run of up to %g hours", c, e.Hours.High)), nil
		}
	}
	gpuh, usd := r.runCost(env)
	if err := r.budget.Reserve(gpuh, usd); err != nil {
		if errors.Is(err, ErrBudget) {
			return r.cuts.skip(sc, key, strings.TrimPrefix(err.Error(), ErrBudget.Error()+": ")), nil
		}
		return false, err
	}
	res := journal.Reservation{Env: env, Task: task, GPUHours: gpuh, USD: usd, Proposal: &rr.Proposal, Minimize: rr.Task.Minimize, Phase: sc.phase, Lineage: rr.lineage}
	r.measured.realRun(sc.phase, env)
	if b := rr.Task.Baseline; !math.IsNaN(b) {
		res.Baseline = &b
	}
	if r.batching {
		r.batchKeys = append(r.batchKeys, key)
		r.batchRes = append(r.batchRes, res)
		return true, nil
	}
	if _, err := r.j.Reserve(key, res); err != nil {
		return false, err
	}
	return true, nil
}

// runReal executes real runs with the executor's concurrency and returns
// their outcomes in order. Reservations are made in order before any run
// starts, so which runs fit the budget does not depend on timing. A
// source-mode candidate whose run fails in its code is repaired and run
// again (repairRuns): its outcome is its last attempt's.
func (r *service) runReal(sc scope, runs []realRun) ([]outcome, error) {
	out := make([]outcome, len(runs))
	// keys[i] is the key of the i-th run's current attempt.
	keys := make([]string, len(runs))
	if err := r.ensureBaselines(runs); err != nil {
		return nil, err
	}
	var todo []int
	r.batching = true
	for i, rr := range runs {
		k, res, ok, err := r.latestAttempt(sc, rr)
		if err != nil {
			r.batching = false
			return nil, err
		}
		if !ok {
			out[i].Skipped, out[i].Why = true, r.cuts.skipReason(k)
			continue
		}
		keys[i] = k
		if res != nil && !rr.retried(res.Status) {
			out[i] = r.toOutcome(rr, res)
			continue
		}
		todo = append(todo, i)
	}
	r.batching = false
	bk, br := r.batchKeys, r.batchRes
	r.batchKeys, r.batchRes = nil, nil
	if len(bk) > 0 {
		if _, err := r.j.ReserveMany(bk, br); err != nil {
			return nil, err
		}
	}
	if err := r.startBatch(runs, keys, todo); err != nil {
		return nil, err
	}
	err := parallel(len(todo), r.v.Executor.Concurrency, func(n int) error {
		i := todo[n]
		res, err := r.execute1(sc, runs[i], keys[i])
		if err != nil {
			return err
		}
		if res == nil {
			out[i].Failed = true
			return nil
		}
		out[i] = r.toOutcome(runs[i], res)
		if runs[i].retried(res.Status) {
			out[i].Failed = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		if !out[i].Skipped && !out[i].Failed && !out[i].Errored {
			r.n.outcome(out[i], runs[i].baseline)
		}
	}
	r.watch.realRuns(runs, out)
	// Counted first: a repair's run is counted by the runReal that runs it.
	if err := (sourceMode{r}).repairRuns(sc, runs, out); err != nil {
		return nil, err
	}
	return out, nil
}

// batched reports whether the runs of a phase go out as batches: when a
// cluster scheduler queues them (every executor but local). On the local
// executor the runtime itself keeps executor.concurrency runs going, one
// Start each.
func (r *service) batched() bool {
	k := r.v.Executor.Kind
	return k != "" && k != "local"
}

// startBatch starts the reserved runs that have no handle yet as one batch
// per trainer (on Slurm, one job array) and journals every handle before
// anyone waits on them. Runs with a journaled handle are left to Wait; on
// resume, reserved runs that never started go out again as a batch of just
// those (StartBatch is idempotent per run id, so a run the trainer did start
// returns its recorded handle). A trainer that cannot batch, or a batch that
// fails after retries, leaves the runs without handles to execute1, which
// starts them one by one.
func (r *service) startBatch(runs []realRun, keys []string, todo []int) error {
	if !r.batched() {
		return nil
	}
	var order []string
	byTrainer := map[string][]int{}
	for _, i := range todo {
		if run, ok := r.j.Run(keys[i]); !ok || run.Handle != nil || run.Result != nil {
			continue
		}
		name := r.envs[runs[i].Task.Env].Trainer
		if _, ok := byTrainer[name]; !ok {
			order = append(order, name)
		}
		byTrainer[name] = append(byTrainer[name], i)
	}
	for _, name := range order {
		idx := byTrainer[name]
		if len(idx) < 2 {
			continue // one run: execute1 starts it
		}
		err := r.plugins.call(name, func(inst Instance) error {
			bs, ok := inst.Trainer().(plugins.BatchStarter)
			if !ok {
				return plugins.ErrUnsupported
			}
			// After a crash mid-batch, send only the runs still without a handle.
			req := &plugins.BatchRequest{}
			var pending []string
			for _, i := range idx {
				if run, _ := r.j.Run(keys[i]); run.Handle == nil {
					req.Runs = append(req.Runs, r.runRequest(runs[i], keys[i]))
					pending = append(pending, keys[i])
				}
			}
			if len(pending) == 0 {
				return nil
			}
			resp, err := bs.StartBatch(r.ctx, req)
			if resp != nil {
				if jerr := r.journalHandles(pending, resp.Handles); jerr != nil {
					return jerr
				}
			}
			return err
		})
		if err != nil {
			if r.ctx.Err() != nil {
				return r.ctx.Err()
			}
			if errors.Is(err, errPermanent) {
				return err
			}
			if !errors.Is(err, plugins.ErrUnsupported) {
				r.progress.logf("starting %d runs as one batch on plugin %s: %v; starting them one by one", len(idx), name, err)
			}
		}
	}
	return nil
}

// journalHandles records the handles a batch returned, durably, in one
// group commit.
func (r *service) journalHandles(keys []string, hs []*plugins.RunHandle) error {
	if len(hs) > len(keys) {
		return fmt.Errorf("%w: StartBatch of %d runs returned %d handles", errPermanent, len(keys), len(hs))
	}
	n := 0
	for i, h := range hs {
		if h == nil {
			continue
		}
		if h.RunID != "" && h.RunID != keys[i] {
			return fmt.Errorf("%w: StartBatch returned the handle of run %s in the place of run %s", errPermanent, h.RunID, keys[i])
		}
		c := *h
		c.RunID = keys[i]
		if err := r.j.Append(journal.KindStarted, keys[i], &c); err != nil {
			return fmt.Errorf("%w: %v", errPermanent, err)
		}
		n++
	}
	if n == 0 {
		return nil
	}
	if err := r.j.Flush(); err != nil {
		return fmt.Errorf("%w: %v", errPermanent, err)
	}
	return nil
}

// latestAttempt finds the attempt of a run to continue: a run whose
// attempts failed on infrastructure gets a new attempt key (a new
// reservation, since the failed attempt may have used its GPUs).
func (r *service) latestAttempt(sc scope, rr realRun) (string, *plugins.RunResult, bool, error) {
	for a := 0; ; a++ {
		key := rr.Key
		if a > 0 {
			key = fmt.Sprintf("%s~%d", rr.Key, a)
		}
		run, ok := r.j.Run(key)
		if !ok {
			if a > r.opts.Retries {
				return key, &plugins.RunResult{RunID: key, Status: plugins.StatusFailed, Reason: "retries exhausted"}, true, nil
			}
			ok, err := r.reserve(sc, key, rr)
			return key, nil, ok, err
		}
		if run.Result == nil {
			return key, nil, true, nil
		}
		if !rr.retried(run.Result.Status) {
			return key, run.Result, true, nil
		}
		if a >= r.opts.Retries {
			return key, run.Result, true, nil
		}
	}
}

func (r *service) toOutcome(rr realRun, res *plugins.RunResult) outcome {
	o := outcome{Result: res, Metric: res.Metric}
	switch res.Status {
	case plugins.StatusInfeasible:
		o.Infeasible = true
	case plugins.StatusError:
		// A source-mode candidate's error: the candidate crashes unless a
		// repair (repairRuns) makes another commit of it that runs.
		if !rr.retried(res.Status) {
			o.Infeasible, o.Errored = true, true
		}
	case plugins.StatusFinished:
		if !rr.baseline {
			o.Gain = rr.Task.gain(res.Metric)
			rr.Task.src.noteVerified(rr.Proposal.Commit, o.Gain)
		}
	}
	return o
}

// execute1 runs one reserved attempt to its result: a journaled handle is
// waited on, and started again under the same run id (which the trainer
// treats as idempotent) when the trainer no longer knows it. Infrastructure
// failures are retried under new reservations while the budget allows.
func (r *service) execute1(sc scope, rr realRun, key string) (*plugins.RunResult, error) {
	for {
		res, err := r.attempt(rr, key)
		if err != nil {
			return nil, err
		}
		if !rr.retried(res.Status) {
			return res, nil
		}
		next, prev, ok, err := r.latestAttempt(sc, rr)
		if err != nil {
			return nil, err
		}
		if !ok || next == key || prev != nil {
			return res, nil // no budget or no retries left: the failure stands
		}
		key = next
	}
}

// runRequest is the trainer's request for attempt key of a run.
func (r *service) runRequest(rr realRun, key string) *plugins.RunRequest {
	env := r.envs[rr.Task.Env]
	cfg := r.config[env.Trainer]
	if len(rr.Task.Command) > 0 {
		cfg = withTaskCommand(cfg, rr.Task.Command, rr.Task.Dir)
	}
	return &plugins.RunRequest{RunID: key, Env: env.Name, Task: rr.Task.Name,
		// One training seed per task (common random numbers): a proposal's
		// gain over the baseline measures its edits, not seed noise.
		Seed: int64(derive(r.v.Seed, "task/"+rr.Task.Env+"/"+rr.Task.Name) >> 1), Proposal: rr.Proposal, Config: cfg,
		Executor: plugins.ExecutorSpec{Kind: r.v.Executor.Kind, Concurrency: r.v.Executor.Concurrency, GPUs: r.v.Executor.GPUs, Slurm: r.v.Executor.Slurm},
		GPUs:     env.GPUs, TimeLimitSeconds: env.TimeLimitSeconds,
		WorkDir: filepath.Join(r.dir, "work", strings.NewReplacer("/", "_", "~", "-").Replace(key)),
		Source:  sourceMode{r}.checkout(rr.Task, rr.Proposal),
	}
}

// attempt runs attempt key of a run to its result. A run is started only
// once its reservation is durable, and counts as started once its handle
// is: the handle is committed before anything waits on it, so a resume
// always finds a started run's handle and re-attaches to it (Wait) rather
// than starting it again. Only a handle the trainer does not know
// (ErrUnknownRun: its process lost the run) starts the run again, and that
// re-execution is journaled first, so status counts it. A reservation
// without a handle (a crash between Start and the commit) is started again
// under the same run id, which the trainer contract makes idempotent.
func (r *service) attempt(rr realRun, key string) (*plugins.RunResult, error) {
	env := r.envs[rr.Task.Env]
	run, _ := r.j.Run(key)
	if run.Result != nil {
		return run.Result, nil
	}
	req := r.runRequest(rr, key)
	var res *plugins.RunResult
	// started is when this process started the run; a run it only waited
	// on (started before a resume, or in a batch) has no duration here.
	var started time.Time
	err := r.plugins.call(env.Trainer, func(inst Instance) error {
		t := inst.Trainer()
		if t == nil {
			return fmt.Errorf("%w: plugin %s is not a trainer", errPermanent, env.Trainer)
		}
		if h := run.Handle; h != nil {
			got, err := t.Wait(r.ctx, h)
			if err == nil {
				res = got
				return nil
			}
			if r.ctx.Err() != nil || !errors.Is(err, plugins.ErrUnknownRun) {
				return err // retried by call, which waits on the handle again
			}
			// The trainer lost the run (its process died with the run in
			// flight): nothing of it can be collected, so it runs again.
			r.progress.logf("run %s: the trainer does not know handle %s (%v); starting it again", key, h.Handle, err)
			if err := r.j.Rerun(key, journal.Rerun{Handle: h.Handle, Reason: err.Error()}); err != nil {
				return fmt.Errorf("%w: %v", errPermanent, err)
			}
		}
		started = r.opts.Clock.Now()
		nh, err := t.Start(r.ctx, req)
		if err != nil {
			return err
		}
		if nh == nil {
			return fmt.Errorf("%w: plugin %s started run %s without a handle", errPermanent, env.Trainer, key)
		}
		// The handle is durable before the run counts as started.
		if err := r.j.Started(key, nh); err != nil {
			return fmt.Errorf("%w: %v", errPermanent, err)
		}
		run.Handle = nh
		got, err := t.Wait(r.ctx, nh)
		if err != nil {
			return err
		}
		res = got
		return nil
	})
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, r.ctx.Err()
		}
		if isPermanent(err) {
			// Retrying cannot fix it: the run stops, and no further attempt
			// is reserved.
			return nil, fmt.Errorf("run %s: %w", key, err)
		}
		res = &plugins.RunResult{RunID: key, Status: plugins.StatusFailed, Reason: err.Error()}
	}
	if r.ctx.Err() != nil && (res.Status == plugins.StatusFailed || res.Status == plugins.StatusPreempted || res.Status == plugins.StatusError) {
		// The trainer stopped the run because this process is being
		// interrupted: not a failure of the run, so nothing is journaled and
		// a resume waits on (or restarts) the same attempt.
		return nil, r.ctx.Err()
	}
	if res.RunID == "" {
		res.RunID = key
	}
	if res.Seconds == 0 && !started.IsZero() && (res.Status == plugins.StatusFinished || res.Status == plugins.StatusInfeasible) {
		// A trainer that does not time its runs is timed here, so that a
		// run's measured hours per run are known (estimate --from-run).
		res.Seconds = r.opts.Clock.Now().Sub(started).Seconds()
	}
	// The result is durable before anything acts on it.
	if err := r.j.Finished(key, res); err != nil {
		return nil, err
	}
	if run, ok := r.j.Run(key); ok {
		if o, overran := r.charged.settle(r.envs[run.Reservation.Env], run.Reservation, res); overran {
			o.log(r.progress, "run "+key)
		}
	}
	r.progress.tick()
	return res, nil
}

// withTaskCommand is a trainer's config for a suite task: its evaluation
// command replaces the trainer's command (builtin:command's task_command,
// run in task_dir), as the compiler checked the config with it.
func withTaskCommand(cfg map[string]any, command []string, dir string) map[string]any {
	cfg = maps.Clone(cfg)
	if cfg == nil {
		cfg = map[string]any{}
	}
	words := make([]any, len(command))
	for i, w := range command {
		words[i] = w
	}
	cfg["task_command"], cfg["task_dir"] = words, dir
	return cfg
}
