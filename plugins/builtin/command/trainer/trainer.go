package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-lang/assay/base/valuetype"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor"
	"github.com/assay-lang/assay/plugins/builtin/command/executor/local"
	"github.com/assay-lang/assay/plugins/builtin/command/executor/slurm"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// StatusCancelled is the status of a run stopped by Cancel. It is not one of
// the plugins.Status* outcomes because only the caller of Cancel sees it.
const StatusCancelled = "cancelled"

// Files of a run's working directory.
const (
	RecordFile = "run.json"    // the request, the config and the handle
	ResultFile = "result.json" // the outcome, once known
	ScriptFile = "run.sh"      // the rendered command; `bash run.sh` re-runs it
	PatchFile  = "proposal.patch"
	StdoutFile = "stdout"
	StderrFile = "stderr"
	SourceDir  = "src" // the checkout, when config.repo is set
)

// kindDone marks a run decided before it ran (a patch that does not apply).
const kindDone = "done"

// timeLimitMarker is what run.sh prints when its time limit ends the command.
const timeLimitMarker = "assay: time limit of "

// Options tune a Trainer; the zero value is what the plugin binary uses.
type Options struct {
	// SlurmPoll and LocalPoll override how often Wait polls (tests).
	SlurmPoll time.Duration
	LocalPoll time.Duration
	// KillGrace is the wait between SIGTERM and SIGKILL for local jobs.
	KillGrace time.Duration
}

// Trainer is the command trainer. It is safe for concurrent use.
type Trainer struct {
	opts Options

	mu    sync.Mutex
	local *local.Executor
}

var (
	_ plugins.Trainer      = (*Trainer)(nil)
	_ plugins.BatchStarter = (*Trainer)(nil)
)

// New returns a trainer.
func New(opts Options) *Trainer { return &Trainer{opts: opts} }

// record is run.json: everything Wait needs in a fresh process.
type record struct {
	RunID            string               `json:"run_id"`
	Env              string               `json:"env"`
	Task             string               `json:"task"`
	Seed             int64                `json:"seed"`
	Proposal         plugins.Proposal     `json:"proposal"`
	Config           map[string]any       `json:"config"`
	Executor         plugins.ExecutorSpec `json:"executor"`
	GPUs             int                  `json:"gpus"`
	TimeLimitSeconds float64              `json:"time_limit_seconds,omitempty"`
	Revision         string               `json:"revision,omitempty"`
	Values           map[string]string    `json:"values,omitempty"`
	Submitted        time.Time            `json:"submitted"`
	Handle           string               `json:"handle,omitempty"`
	Decided          *plugins.RunResult   `json:"decided,omitempty"`
	// Update is set for a policy update (see update.go).
	Update *plugins.PolicyJob `json:"update,omitempty"`
}

// Describe lists the knobs the config declares.
func (t *Trainer) Describe(ctx context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	c, err := parseConfig(req.Config)
	if err != nil {
		return nil, err
	}
	return &plugins.DescribeResponse{Knobs: c.Knobs}, nil
}

// Start prepares the run's directory and submits it. Starting a RunID
// whose directory already holds a handle returns that handle: nothing runs
// twice.
func (t *Trainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	hs, err := t.start(ctx, []*plugins.RunRequest{req})
	if err != nil {
		return nil, err
	}
	return hs[0], nil
}

// StartBatch implements plugins.BatchStarter: on Slurm with
// executor.slurm.array = true, the runs that ask for the same resources go
// in one job array (throttled to executor.concurrency tasks at once); on the
// local executor each run is started on its own and queues for a slot. A
// run whose directory already holds a handle returns it without starting
// again. Handles come back in request order.
func (t *Trainer) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	hs, err := t.start(ctx, req.Runs)
	if err != nil {
		return nil, err
	}
	return &plugins.BatchResponse{Handles: hs}, nil
}

func (t *Trainer) start(ctx context.Context, reqs []*plugins.RunRequest) ([]*plugins.RunHandle, error) {
	out := make([]*plugins.RunHandle, len(reqs))
	var todo []*prepared
	for i, req := range reqs {
		p, err := t.prepare(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", req.RunID, err)
		}
		switch {
		case p.rec.Handle != "":
			out[i] = &plugins.RunHandle{RunID: req.RunID, Handle: p.rec.Handle}
		case p.rec.Decided != nil:
			h := executor.Handle{Kind: kindDone, ID: "decided", Dir: p.dir}.String()
			if err := p.save(h); err != nil {
				return nil, err
			}
			out[i] = &plugins.RunHandle{RunID: req.RunID, Handle: h}
		default:
			p.index = i
			todo = append(todo, p)
		}
	}
	for len(todo) > 0 {
		// One submission per executor spec: runs of a batch normally share it.
		group := todo[:1]
		var rest []*prepared
		for _, p := range todo[1:] {
			if sameExecutor(p.rec.Executor, group[0].rec.Executor) {
				group = append(group, p)
			} else {
				rest = append(rest, p)
			}
		}
		todo = rest
		if err := t.submit(ctx, group, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func sameExecutor(a, b plugins.ExecutorSpec) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func (t *Trainer) submit(ctx context.Context, group []*prepared, out []*plugins.RunHandle) error {
	ex, err := t.executorFor(group[0].rec.Executor)
	if err != nil {
		return err
	}
	if arr, ok := ex.(executor.ArraySubmitter); ok && len(group) > 1 && arrayWanted(group[0].rec.Executor) {
		jobs := make([]*executor.Job, len(group))
		for i, p := range group {
			jobs[i] = p.job
		}
		hs, err := arr.SubmitArray(ctx, jobs)
		if err == nil {
			for i, p := range group {
				if err := p.save(hs[i]); err != nil {
					return err
				}
				out[p.index] = &plugins.RunHandle{RunID: p.rec.RunID, Handle: hs[i]}
			}
			return nil
		}
		if !errors.Is(err, slurm.ErrMixedArray) {
			return err
		}
	}
	for _, p := range group {
		h, err := ex.Submit(ctx, p.job)
		if err != nil {
			return fmt.Errorf("run %s: %w", p.rec.RunID, err)
		}
		if err := p.save(h); err != nil {
			return err
		}
		out[p.index] = &plugins.RunHandle{RunID: p.rec.RunID, Handle: h}
	}
	return nil
}

func arrayWanted(spec plugins.ExecutorSpec) bool {
	b, _ := spec.Slurm["array"].(bool)
	return b
}

// executorFor returns the executor a spec names: one local pool per
// trainer (the first spec sizes it), or a Slurm client.
func (t *Trainer) executorFor(spec plugins.ExecutorSpec) (executor.Executor, error) {
	switch spec.Kind {
	case "", executor.KindLocal:
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.local == nil {
			conc := spec.Concurrency
			if conc <= 0 {
				conc = 1
			}
			t.local = local.New(local.Options{
				Concurrency:  conc,
				GPUIDs:       local.GPUIDs(spec.GPUs),
				KillGrace:    t.opts.KillGrace,
				PollInterval: t.opts.LocalPoll,
			})
		}
		return t.local, nil
	case executor.KindSlurm:
		o, err := slurm.ParseOptions(spec.Slurm)
		if err != nil {
			return nil, err
		}
		if t.opts.SlurmPoll > 0 {
			o.PollInterval = t.opts.SlurmPoll
		}
		o.MaxRunning = spec.Concurrency
		return slurm.New(o), nil
	}
	return nil, fmt.Errorf("executor.kind: %q is not local or slurm", spec.Kind)
}

// prepared is a run whose directory is ready.
type prepared struct {
	rec   *record
	cfg   *Config
	dir   string
	job   *executor.Job
	index int
}

func (p *prepared) save(handle string) error {
	p.rec.Handle = handle
	return writeJSON(filepath.Join(p.dir, RecordFile), p.rec)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readRecord(dir string) (*record, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, RecordFile), err)
	}
	return &r, nil
}

var unsafeRE = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// prepare makes the run's directory: run.json, the overrides file, the
// checkout and patch (knob mode) or the candidate's checkout alone
// (source mode), run.sh. A proposal that cannot apply is decided
// infeasible here (rec.Decided) and never runs.
func (t *Trainer) prepare(ctx context.Context, req *plugins.RunRequest) (*prepared, error) {
	if req.RunID == "" {
		return nil, fmt.Errorf("RunRequest.RunID is empty")
	}
	cfg, err := parseConfig(req.Config)
	if err != nil {
		return nil, err
	}
	dir, again, err := runDir(req, cfg)
	if err != nil || again != nil {
		return again, err
	}
	// The request's limit (the plan's high hours) and config.time_limit
	// both hold: the shorter wins.
	limit := cfg.TimeLimit
	if r := time.Duration(req.TimeLimitSeconds * float64(time.Second)); r > 0 && (limit == 0 || r < limit) {
		limit = r
	}
	if req.Update != nil {
		return t.prepareUpdate(req, cfg, dir, limit)
	}
	if cfg.command == nil {
		return nil, &configError{fmt.Errorf("config.command: missing; this plugin has only an update_command, so it trains policies but runs no proposal")}
	}
	rec := &record{
		RunID: req.RunID, Env: req.Env, Task: req.Task, Seed: req.Seed, Proposal: req.Proposal,
		Config: req.Config, Executor: req.Executor, GPUs: req.GPUs,
		TimeLimitSeconds: limit.Seconds(), Submitted: time.Now().UTC(),
	}
	p := &prepared{rec: rec, cfg: cfg, dir: dir}
	decide := func(reason string) (*prepared, error) {
		rec.Decided = &plugins.RunResult{RunID: req.RunID, Status: plugins.StatusInfeasible, Reason: reason, WorkDir: dir}
		return p, writeJSON(filepath.Join(dir, RecordFile), rec)
	}

	var cwd, overrides, reason string
	if req.Source != nil {
		// Source mode: the runtime built and committed the program; the
		// command runs in a checkout of that commit, and nothing else of
		// the proposal reaches it (no overrides file, no ASSAY_CONFIG).
		cwd, err = checkoutSource(ctx, cfg, req, rec, dir)
	} else {
		rec.Values, reason = proposalValues(cfg, req.Proposal.Edits)
		if reason != "" {
			return decide(reason)
		}
		overrides = filepath.Join(dir, filepath.Base(cfg.OverridesFile))
		if err := writeOverrides(overrides, cfg.OverridesFormat, rec.Values); err != nil {
			return nil, err
		}
		cwd, reason, err = checkoutProposal(ctx, cfg, req.Proposal.Patch, rec, dir)
	}
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return decide(reason)
	}
	if cfg.TaskDir != "" {
		if filepath.IsAbs(cfg.TaskDir) {
			cwd = cfg.TaskDir
		} else {
			cwd = filepath.Join(cwd, cfg.TaskDir)
		}
	}
	if err := writeRun(p, req, cwd, overrides, limit); err != nil {
		return nil, err
	}
	return p, nil
}

// runDir is the run's absolute work directory, emptied of a previous
// attempt's outcome files. again is set when the directory already holds
// this run, submitted: the caller re-attaches instead of preparing anew.
func runDir(req *plugins.RunRequest, cfg *Config) (dir string, again *prepared, err error) {
	dir = req.WorkDir
	if dir == "" {
		dir = filepath.Join(cfg.RunDir, unsafeRE.ReplaceAllString(req.RunID, "_"))
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", nil, err
	}
	if old, err := readRecord(dir); err == nil {
		if old.RunID != req.RunID {
			return "", nil, fmt.Errorf("work directory %s belongs to run %s", dir, old.RunID)
		}
		if old.Handle != "" {
			return dir, &prepared{rec: old, cfg: cfg, dir: dir}, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	for _, f := range []string{ResultFile, StdoutFile, StderrFile, executor.ExitFile, executor.CancelFile} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	return dir, nil, nil
}

// proposalValues are the values a command sees: knob defaults, then the
// proposal's edits, each of its knob's type (an edit of a trainer that
// declares no knobs is a plain word). A non-empty reason says why the
// proposal is infeasible; the runtime refuses such a proposal before it
// asks for a run, and this check is the trainer's own.
func proposalValues(cfg *Config, edits map[string]string) (values map[string]string, reason string) {
	values = map[string]string{}
	known := map[string]plugins.Knob{}
	for _, k := range cfg.Knobs {
		known[k.Name] = k
		values[k.Name] = k.Default
	}
	for _, name := range slices.Sorted(maps.Keys(edits)) {
		v := edits[name]
		k, ok := known[name]
		switch {
		case !ok && len(cfg.Knobs) > 0:
			return nil, fmt.Sprintf("the proposal edits %q, which is not a knob of this trainer (config.knobs)", name)
		case !ok:
			k = plugins.Knob{Name: name, Type: valuetype.String}
		}
		if err := k.Check(v); err != nil {
			return nil, fmt.Sprintf("the proposal sets %s to %v", name, err)
		}
		if cfg.OverridesFormat == "env" && !identRE.MatchString(name) {
			return nil, fmt.Sprintf("the proposal edits %q, which cannot be a line of the KEY=VALUE overrides file (a shell may source it); edit names there are letters, digits and _", name)
		}
		values[name] = v
	}
	return values, ""
}

// checkoutSource checks the candidate's commit out in the run's src/ and
// returns that directory. A config that would put anything beside the
// commit into the run (knobs, a placeholder of a proposal's content,
// knob mode's settings) is refused, as `assay validate` refuses it, and
// so is a task directory outside the checkout: either would measure
// another program than the candidate's.
func checkoutSource(ctx context.Context, cfg *Config, req *plugins.RunRequest, rec *record, dir string) (string, error) {
	if ps := pluginconfig.SourceModeProblems(req.Config); len(ps) > 0 {
		return "", &configError{fmt.Errorf("config.%s: %s (%s)", ps[0].Path, ps[0].Msg, pluginconfig.SourceModeWhy)}
	}
	if filepath.IsAbs(cfg.TaskDir) {
		return "", fmt.Errorf("config.task_dir %s: in source mode a task's command runs in the candidate's checkout, so task_dir must be relative to it", cfg.TaskDir)
	}
	cwd := filepath.Join(dir, SourceDir)
	var err error
	rec.Revision, err = checkout(ctx, req.Source.Repository, req.Source.Commit, cwd)
	return cwd, err
}

// checkoutProposal checks out config.repo (when set) and applies the
// proposal's patch, returning the directory the command runs in. A
// non-empty reason says why the proposal is infeasible.
func checkoutProposal(ctx context.Context, cfg *Config, patchText string, rec *record, dir string) (cwd, reason string, err error) {
	cwd = dir
	if cfg.Repo != "" {
		cwd = filepath.Join(dir, SourceDir)
		sha, err := checkout(ctx, cfg.Repo, cfg.Revision, cwd)
		if err != nil {
			return "", "", err
		}
		rec.Revision = sha
	}
	if cfg.Apply != ApplyPatch || strings.TrimSpace(patchText) == "" {
		return cwd, "", nil
	}
	patch := filepath.Join(dir, PatchFile)
	body := patchText
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if err := os.WriteFile(patch, []byte(body), 0o644); err != nil {
		return "", "", err
	}
	if out, err := git(ctx, cwd, "apply", "--check", patch); err != nil {
		return cwd, "the proposal's patch does not apply at revision " + short(rec.Revision) + ": " + out, nil
	}
	if out, err := git(ctx, cwd, "apply", patch); err != nil {
		return cwd, "git apply: " + out, nil
	}
	return cwd, "", nil
}

// writeRun writes run.sh and run.json and sets the job that runs them;
// overrides is the overrides file, "" in source mode.
func writeRun(p *prepared, req *plugins.RunRequest, cwd, overrides string, limit time.Duration) error {
	rec, cfg, dir := p.rec, p.cfg, p.dir
	vars := map[string]string{}
	for k, v := range rec.Values {
		vars[k] = v
	}
	for k, v := range map[string]string{
		"gpus": strconv.Itoa(req.GPUs), "workdir": dir,
		"seed": strconv.FormatInt(req.Seed, 10), "task": req.Task, "env": req.Env, "run_id": req.RunID,
	} {
		vars[k] = v
	}
	if overrides != "" {
		vars["config"] = overrides // knob mode only: a source-mode run has none
	}
	defs, err := commandValues(cfg.command, vars, rec.Values)
	if err != nil {
		return &configError{fmt.Errorf("config.command: %w", err)}
	}
	script, err := runScript(rec, cfg, cfg.command, cwd, dir, overrides, defs, limit)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ScriptFile), []byte(script), 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, RecordFile), rec); err != nil {
		return err
	}
	p.job = &executor.Job{
		Name:   "assay-" + unsafeRE.ReplaceAllString(req.RunID, "_"),
		Dir:    dir,
		Script: filepath.Join(dir, ScriptFile),
		Stdout: filepath.Join(dir, StdoutFile),
		Stderr: filepath.Join(dir, StderrFile),
		GPUs:   req.GPUs,
		Pass:   cfg.PassEnv,
	}
	if limit > 0 {
		// run.sh enforces the limit itself, to the second; the executor's
		// limit is a backstop with room for run.sh to report it.
		p.job.TimeLimit = limit + 30*time.Second
	}
	return nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Cancel stops the run and everything it started.
func (t *Trainer) Cancel(ctx context.Context, h *plugins.RunHandle) error {
	eh, err := executor.ParseHandle(h.Handle)
	if err != nil {
		return err
	}
	if eh.Kind == kindDone {
		return nil
	}
	spec := plugins.ExecutorSpec{Kind: eh.Kind}
	if rec, err := readRecord(eh.Dir); err == nil {
		spec = rec.Executor
	}
	ex, err := t.executorFor(spec)
	if err != nil {
		return err
	}
	return ex.Cancel(ctx, h.Handle)
}
