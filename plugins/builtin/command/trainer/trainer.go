package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor"
	"github.com/assay-lang/assay/plugins/builtin/command/executor/local"
	"github.com/assay-lang/assay/plugins/builtin/command/executor/slurm"
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
// checkout and patch, run.sh. A proposal that cannot apply is decided
// infeasible here (rec.Decided) and never runs.
func (t *Trainer) prepare(ctx context.Context, req *plugins.RunRequest) (*prepared, error) {
	if req.RunID == "" {
		return nil, fmt.Errorf("RunRequest.RunID is empty")
	}
	cfg, err := parseConfig(req.Config)
	if err != nil {
		return nil, err
	}
	dir := req.WorkDir
	if dir == "" {
		dir = filepath.Join(cfg.RunDir, unsafeRE.ReplaceAllString(req.RunID, "_"))
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if old, err := readRecord(dir); err == nil {
		if old.RunID != req.RunID {
			return nil, fmt.Errorf("work directory %s belongs to run %s", dir, old.RunID)
		}
		if old.Handle != "" {
			return &prepared{rec: old, cfg: cfg, dir: dir}, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range []string{ResultFile, StdoutFile, StderrFile, executor.ExitFile, executor.CancelFile} {
		_ = os.Remove(filepath.Join(dir, f))
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

	// The values a command sees: knob defaults, then the proposal's edits.
	values := map[string]string{}
	known := map[string]plugins.Knob{}
	for _, k := range cfg.Knobs {
		known[k.Name] = k
		values[k.Name] = k.Default
	}
	editNames := make([]string, 0, len(req.Proposal.Edits))
	for name := range req.Proposal.Edits {
		editNames = append(editNames, name)
	}
	sort.Strings(editNames)
	for _, name := range editNames {
		v := req.Proposal.Edits[name]
		if len(cfg.Knobs) > 0 {
			k, ok := known[name]
			if !ok {
				return decide(fmt.Sprintf("the proposal edits %q, which is not a knob of this trainer (config.knobs)", name))
			}
			if len(k.Values) > 0 && !contains(k.Values, v) {
				return decide(fmt.Sprintf("the proposal sets %s = %q; allowed: %s", name, v, strings.Join(k.Values, ", ")))
			}
		}
		values[name] = v
	}
	for _, name := range editNames {
		if strings.ContainsRune(req.Proposal.Edits[name], 0) {
			return decide(fmt.Sprintf("the proposal sets %s to a value holding a NUL byte, which no shell variable or file line can carry", name))
		}
		if cfg.OverridesFormat == "env" && !identRE.MatchString(name) {
			return decide(fmt.Sprintf("the proposal edits %q, which cannot be a line of the KEY=VALUE overrides file (a shell may source it); edit names there are letters, digits and _", name))
		}
	}
	rec.Values = values

	overrides := filepath.Join(dir, filepath.Base(cfg.OverridesFile))
	if err := writeOverrides(overrides, cfg.OverridesFormat, values); err != nil {
		return nil, err
	}

	cwd := dir
	if cfg.Repo != "" {
		cwd = filepath.Join(dir, SourceDir)
		sha, err := checkout(ctx, cfg.Repo, cfg.Revision, cwd)
		if err != nil {
			return nil, err
		}
		rec.Revision = sha
	}
	if cfg.Apply == ApplyPatch && strings.TrimSpace(req.Proposal.Patch) != "" {
		patch := filepath.Join(dir, PatchFile)
		body := req.Proposal.Patch
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		if err := os.WriteFile(patch, []byte(body), 0o644); err != nil {
			return nil, err
		}
		if out, err := git(ctx, cwd, "apply", "--check", patch); err != nil {
			return decide("the proposal's patch does not apply at revision " + short(rec.Revision) + ": " + out)
		}
		if out, err := git(ctx, cwd, "apply", patch); err != nil {
			return decide("git apply: " + out)
		}
	}

	vars := map[string]string{}
	for k, v := range values {
		vars[k] = v
	}
	for k, v := range map[string]string{
		"gpus": strconv.Itoa(req.GPUs), "config": overrides, "workdir": dir,
		"seed": strconv.FormatInt(req.Seed, 10), "task": req.Task, "env": req.Env, "run_id": req.RunID,
	} {
		vars[k] = v
	}
	defs, err := commandValues(cfg.command, vars, values)
	if err != nil {
		return nil, &configError{fmt.Errorf("config.command: %w", err)}
	}
	script, err := runScript(rec, cfg, cfg.command, cwd, dir, overrides, defs, limit)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ScriptFile), []byte(script), 0o755); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(dir, RecordFile), rec); err != nil {
		return nil, err
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
	return p, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// commandValues pairs each variable the command refers to with its value.
func commandValues(t *commandTemplate, vars, values map[string]string) ([][2]string, error) {
	var defs [][2]string
	for _, r := range t.Refs {
		v, ok := vars[r.Name]
		if !r.Plain {
			v, ok = values[r.Name], true
		}
		if !ok {
			return nil, unknownPlaceholder(r.Name, vars)
		}
		defs = append(defs, [2]string{r.Var, v})
	}
	return defs, nil
}

// commentSafe is s for a comment of run.sh: as it is when it is printable
// text on one line, else Go-quoted, so no newline ends the comment and no
// control character reaches a terminal that shows the script.
func commentSafe(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// runScript is run.sh: the run's environment, the values its command
// refers to, then the command, so `bash run.sh` re-runs it by hand. Every
// value is single-quoted in an assignment; the command only refers to it.
func runScript(rec *record, cfg *Config, cmd *commandTemplate, cwd, dir, overrides string, defs [][2]string, limit time.Duration) (string, error) {
	q := executor.Quote
	var b strings.Builder
	fmt.Fprintf(&b, "#!/usr/bin/env bash\n# Assay run %s: environment %s, task %s, seed %d.\n",
		commentSafe(rec.RunID), commentSafe(rec.Env), commentSafe(rec.Task), rec.Seed)
	if rec.Revision != "" {
		fmt.Fprintf(&b, "# Source: %s at %s", commentSafe(cfg.Repo), commentSafe(rec.Revision))
		if cfg.Apply == ApplyPatch && rec.Proposal.Patch != "" {
			b.WriteString(" with " + PatchFile + " applied")
		}
		b.WriteString(" (in " + SourceDir + "/).\n")
	}
	b.WriteString("# Re-run by hand: bash run.sh\n")
	b.WriteString("cd " + q(cwd) + " || exit 1\n")
	env := map[string]string{
		"ASSAY_RUN_ID": rec.RunID, "ASSAY_ENV": rec.Env, "ASSAY_TASK": rec.Task,
		"ASSAY_SEED": strconv.FormatInt(rec.Seed, 10), "ASSAY_WORKDIR": dir,
		"ASSAY_CONFIG": overrides, "ASSAY_GPUS": strconv.Itoa(rec.GPUs),
	}
	if u := rec.Update; u != nil {
		delete(env, "ASSAY_CONFIG")
		delete(env, "ASSAY_ENV")
		delete(env, "ASSAY_TASK")
		env["ASSAY_BATCH"], env["ASSAY_ADAPTER_DIR"] = u.BatchFile, u.AdapterDir
	}
	for k, v := range cfg.Env {
		env[k] = v
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.ContainsRune(env[k], 0) {
			return "", fmt.Errorf("%s holds a NUL byte, which no environment variable can carry", k)
		}
		b.WriteString("export " + k + "=" + q(env[k]) + "\n")
	}
	if len(defs) > 0 {
		b.WriteString("# The values the command refers to; the command itself holds none of them.\n")
	}
	for _, d := range defs {
		if strings.ContainsRune(d[1], 0) {
			return "", fmt.Errorf("the value of %s holds a NUL byte, which no shell variable can carry", d[0])
		}
		b.WriteString("export " + d[0] + "=" + shellQuote(d[1]) + "\n")
	}
	command := cmd.Body
	if limit <= 0 {
		b.WriteString(command)
		if !strings.HasSuffix(command, "\n") {
			b.WriteString("\n")
		}
		return b.String(), nil
	}
	secs := strconv.FormatInt(int64(limit.Round(time.Second)/time.Second), 10)
	if secs == "0" {
		secs = "1"
	}
	b.WriteString("timeout --kill-after=10 " + secs + " bash -c " + q(command) + "\n")
	b.WriteString("rc=$?\n")
	b.WriteString("if [ \"$rc\" -eq 124 ]; then echo \"" + timeLimitMarker + secs + "s exceeded\" >&2; fi\n")
	b.WriteString("exit $rc\n")
	return b.String(), nil
}

// writeOverrides writes the proposal's values as JSON, YAML or KEY=VALUE
// lines. Values that read as numbers or booleans are written as such.
func writeOverrides(path, format string, values map[string]string) error {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	switch format {
	case "json":
		m := map[string]any{}
		for _, k := range keys {
			m[k] = typed(values[k])
		}
		j, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		b.Write(j)
		b.WriteString("\n")
	case "yaml":
		for _, k := range keys {
			v := typed(values[k])
			vs, isStr := v.(string)
			if isStr {
				vs = yamlString(vs)
			} else {
				j, _ := json.Marshal(v)
				vs = string(j)
			}
			b.WriteString(yamlString(k) + ": " + vs + "\n")
		}
	default:
		// Shell syntax: each value quoted, so sourcing the file only assigns.
		for _, k := range keys {
			if !identRE.MatchString(k) {
				return fmt.Errorf("overrides: %q is not a variable name", k)
			}
			b.WriteString(k + "=" + executor.Quote(values[k]) + "\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// yamlString is s as a YAML double-quoted scalar: every character YAML
// does not allow raw (controls, DEL, C1, line and paragraph separators, the
// byte order mark) is escaped.
func yamlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func typed(s string) any {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
		return b
	}
	return s
}

// checkout clones repo into dst at revision and returns the commit.
func checkout(ctx context.Context, repo, revision, dst string) (string, error) {
	_ = os.RemoveAll(dst)
	args := []string{"clone", "--quiet", "--no-checkout"}
	if st, err := os.Stat(repo); err == nil && st.IsDir() {
		// A local repository: share its objects instead of copying them.
		args = append(args, "--shared")
	}
	if out, err := git(ctx, "", append(args, repo, dst)...); err != nil {
		return "", fmt.Errorf("config.repo: cannot clone %s: %s", repo, out)
	}
	sha, err := git(ctx, dst, "rev-parse", "--verify", "--quiet", revision+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("config.revision: %q is not a commit of %s", revision, repo)
	}
	if out, err := git(ctx, dst, "checkout", "--quiet", "--detach", sha); err != nil {
		return "", fmt.Errorf("config.revision: cannot check out %s: %s", sha, out)
	}
	return sha, nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Wait waits for the run and reads its outcome. It needs only the handle:
// after a crash a fresh process re-attaches to the job without submitting it
// again.
func (t *Trainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	// A handle that names no run directory we can read is one this trainer
	// does not know: nothing of the run survives, so it is ErrUnknownRun
	// (start it again), not a failed run.
	eh, err := executor.ParseHandle(h.Handle)
	if err != nil {
		return nil, fmt.Errorf("run %s: %v: %w", h.RunID, err, plugins.ErrUnknownRun)
	}
	if eh.Dir == "" {
		return nil, fmt.Errorf("run %s: handle %q names no work directory: %w", h.RunID, h.Handle, plugins.ErrUnknownRun)
	}
	rec, err := readRecord(eh.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("run %s: %v: %w", h.RunID, err, plugins.ErrUnknownRun)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %v", h.RunID, err)
	}
	if b, err := os.ReadFile(filepath.Join(eh.Dir, ResultFile)); err == nil {
		var r plugins.RunResult
		if json.Unmarshal(b, &r) == nil && r.Status != "" {
			return &r, nil
		}
	}
	if eh.Kind == kindDone {
		if rec.Decided == nil {
			return nil, fmt.Errorf("run %s: handle %q but no decided result in %s", h.RunID, h.Handle, RecordFile)
		}
		return rec.Decided, nil
	}
	cfg, err := parseConfig(rec.Config)
	if err != nil {
		return nil, err
	}
	ex, err := t.executorFor(rec.Executor)
	if err != nil {
		return nil, err
	}
	if ex.Kind() != eh.Kind {
		return nil, fmt.Errorf("handle %q is a %s job but run.json says executor %q", h.Handle, eh.Kind, ex.Kind())
	}
	st, err := ex.Wait(ctx, h.Handle)
	if err != nil {
		return nil, err
	}
	r := outcome(rec, cfg, eh.Dir, st)
	if err := writeJSON(filepath.Join(eh.Dir, ResultFile), r); err != nil {
		return nil, err
	}
	return r, nil
}

// outcome turns how the script ended into a run result.
func outcome(rec *record, cfg *Config, dir string, st executor.Status) *plugins.RunResult {
	r := &plugins.RunResult{RunID: rec.RunID, WorkDir: dir}
	end := time.Now()
	if fi, err := os.Stat(filepath.Join(dir, executor.ExitFile)); err == nil {
		end = fi.ModTime()
	}
	r.Seconds = end.Sub(rec.Submitted).Seconds()
	if r.Seconds < 0 {
		r.Seconds = 0
	}
	r.GPUHours = float64(rec.GPUs) * r.Seconds / 3600
	stdout := readTail(filepath.Join(dir, StdoutFile), 1<<20)
	stderr := readTail(filepath.Join(dir, StderrFile), 1<<20)
	r.Logs = "stdout: " + filepath.Join(dir, StdoutFile) + "\nstderr: " + filepath.Join(dir, StderrFile) +
		"\n--- stderr (end) ---\n" + lastLines(stderr, 20) + "\n--- stdout (end) ---\n" + lastLines(stdout, 20)

	timeLimit := fmt.Sprintf("time limit of %s exceeded", time.Duration(rec.TimeLimitSeconds*float64(time.Second)))
	timedOut := func() {
		r.Status, r.Reason = plugins.StatusFailed, timeLimit
		if cfg.TimeoutInfeasible {
			r.Status = plugins.StatusInfeasible
			r.Reason += " (timeout_infeasible)"
		}
	}
	switch st.State {
	case executor.Cancelled:
		if st.CancelledByUs {
			r.Status, r.Reason = StatusCancelled, "cancelled"
		} else {
			r.Status, r.Reason = plugins.StatusFailed, "cancelled by the scheduler or an administrator"
		}
		return r
	case executor.Preempted:
		r.Status, r.Reason = plugins.StatusPreempted, st.Reason+"; requeue"
		return r
	case executor.TimedOut:
		timedOut()
		return r
	case executor.Lost:
		r.Status, r.Reason = plugins.StatusFailed, st.Reason
		return r
	}
	// The script ran to an end: completed or failed.
	if rec.Update != nil {
		return updateOutcome(rec, r, st, stderr)
	}
	if st.State == executor.Failed && st.ExitCode == 124 && rec.TimeLimitSeconds > 0 && strings.Contains(stderr, timeLimitMarker) {
		timedOut()
		return r
	}
	for _, re := range cfg.InfeasiblePatterns {
		if m := re.FindString(stderr); m != "" {
			r.Status, r.Reason = plugins.StatusInfeasible, fmt.Sprintf("stderr matches infeasible pattern %q: %s", re.String(), strings.TrimSpace(m))
			return r
		}
	}
	if st.State == executor.Failed {
		if st.Signal == 0 && containsInt(cfg.InfeasibleExitCodes, st.ExitCode) {
			r.Status, r.Reason = plugins.StatusInfeasible, fmt.Sprintf("exit code %d (infeasible_exit_codes)", st.ExitCode)
			return r
		}
		r.Status, r.Reason = plugins.StatusFailed, st.Reason
		if last := lastLines(stderr, 1); last != "" {
			r.Reason += "; stderr ends: " + last
		}
		return r
	}
	var m float64
	var err error
	if cfg.MetricRegex != nil {
		m, err = metricFromStdout(cfg, stdout)
	} else {
		path := cfg.MetricFile
		if rendered, rerr := render("metric_file", path, templateVars(rec, dir)); rerr == nil {
			path = rendered
		}
		if !filepath.IsAbs(path) {
			base := dir
			if cfg.Repo != "" {
				base = filepath.Join(dir, SourceDir)
			}
			path = filepath.Join(base, path)
		}
		m, err = metricFromJSON(path, cfg.MetricField)
	}
	if err != nil {
		r.Status, r.Reason = plugins.StatusFailed, "the command succeeded but reported no metric: "+err.Error()
		return r
	}
	r.Status, r.Metric = plugins.StatusFinished, m
	return r
}

func templateVars(rec *record, dir string) map[string]string {
	vars := map[string]string{}
	for k, v := range rec.Values {
		vars[k] = v
	}
	vars["gpus"] = strconv.Itoa(rec.GPUs)
	vars["workdir"] = dir
	vars["seed"] = strconv.FormatInt(rec.Seed, 10)
	vars["task"] = rec.Task
	vars["env"] = rec.Env
	vars["run_id"] = rec.RunID
	return vars
}

func containsInt(l []int, n int) bool {
	for _, x := range l {
		if x == n {
			return true
		}
	}
	return false
}

func readTail(path string, max int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(fi.Size()-max, 0)
	}
	b := new(bytes.Buffer)
	_, _ = b.ReadFrom(f)
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
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
