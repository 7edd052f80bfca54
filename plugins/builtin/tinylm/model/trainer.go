package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// Config keys a plugin block may set.
const (
	ConfigSteps  = "steps"  // optimiser steps per run (default DefaultSteps)
	ConfigCorpus = "corpus" // corpus name (default: the task's name when it is one, else "grammar")
	// ConfigEvalPositions caps the validation positions the reported loss
	// averages (default DefaultEvalPositions).
	ConfigEvalPositions = "eval_positions"
)

// Trainer serves plugins.Trainer: each run trains a tiny model in a
// goroutine keyed by RunID.
type Trainer struct {
	mu   sync.Mutex
	runs map[string]*run
}

type run struct {
	done   chan struct{}
	cancel context.CancelFunc
	res    *plugins.RunResult
}

var _ plugins.Trainer = (*Trainer)(nil)

// NewTrainer returns a trainer with no runs.
func NewTrainer() *Trainer { return &Trainer{runs: map[string]*run{}} }

// Describe lists the knobs.
func (t *Trainer) Describe(ctx context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	if _, err := parseConfig(req.Config, ""); err != nil {
		return nil, plugins.WithKind(plugins.ErrConfig, err)
	}
	return &plugins.DescribeResponse{Knobs: Knobs()}, nil
}

// errConfig marks a request whose plugin config is unusable; no retry can
// fix it.
var errConfig = fmt.Errorf("bad tinylm plugin config: %w", plugins.ErrConfig)

// parseConfig reads the plugin block's config; an unknown key is an error
// so a typo does not silently train the default. The config is first
// checked against the declaration `assay validate` uses
// (pluginconfig.TinyLM), so both accept the same configs.
func parseConfig(cfg map[string]any, task string) (runConfig, error) {
	rc := runConfig{steps: DefaultSteps, corpus: CorpusGrammar, evalPositions: DefaultEvalPositions}
	if ps := pluginconfig.TinyLM.Check(cfg); len(ps) > 0 {
		return rc, fmt.Errorf("%w: %s", errConfig, pluginconfig.Join(ps))
	}
	if _, ok := corpora[task]; ok {
		rc.corpus = task
	}
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := cfg[k]
		switch k {
		case ConfigSteps, ConfigEvalPositions:
			n, ok := asInt(v)
			if !ok || n < 1 {
				return rc, fmt.Errorf("tinylm config: %s must be a positive integer, got %v", k, v)
			}
			if k == ConfigSteps {
				rc.steps = n
			} else {
				rc.evalPositions = n
			}
		case ConfigCorpus:
			s, ok := v.(string)
			if _, known := corpora[s]; !ok || !known {
				return rc, fmt.Errorf("tinylm config: %s must be one of %s, got %v", k, strings.Join(CorpusNames(), ", "), v)
			}
			rc.corpus = s
		default:
			return rc, fmt.Errorf("tinylm config: unknown key %q (known: %s, %s, %s)", k, ConfigCorpus, ConfigEvalPositions, ConfigSteps)
		}
	}
	return rc, nil
}

// runConfig is what a plugin block's config sets for each run.
type runConfig struct {
	steps, evalPositions int
	corpus               string
}

func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<31 {
			return int(x), true
		}
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

// ResultFile is where a run with a work directory leaves its result, so a
// trainer process started after the one that ran it (the plugin restarted,
// the experiment was resumed) re-attaches to it instead of training again.
const ResultFile = "tinylm-result.json"

// Start begins a run and returns at once; starting a RunID again returns
// the same handle without a second run, in this process or, for a run that
// left its result in its work directory, in any later one. The handle is
// the work directory when the request has one.
func (t *Trainer) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	if req.RunID == "" {
		return nil, errors.New("tinylm: empty RunID")
	}
	rc, err := parseConfig(req.Config, req.Task)
	if err != nil {
		return nil, plugins.WithKind(plugins.ErrConfig, err)
	}
	h := &plugins.RunHandle{RunID: req.RunID, Handle: req.RunID}
	if req.WorkDir != "" {
		h.Handle = req.WorkDir
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.runs[req.RunID]; ok {
		return h, nil
	}
	if _, err := readResult(req.WorkDir, req.RunID); err == nil {
		return h, nil // it ended in an earlier process: nothing trains twice
	}
	rctx, cancel := context.WithCancel(context.Background())
	r := &run{done: make(chan struct{}), cancel: cancel}
	t.runs[req.RunID] = r
	go func() {
		defer close(r.done)
		defer cancel()
		res := execute(rctx, req, rc)
		if rctx.Err() == nil && req.WorkDir != "" {
			// Best effort: a result that cannot be saved is still
			// returned by this process's Wait.
			_ = writeResult(req.WorkDir, res)
		}
		r.res = res
	}()
	return h, nil
}

// writeResult saves a run's result in its work directory, whole or not at
// all (a temporary file renamed into place).
func writeResult(dir string, res *plugins.RunResult) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, ResultFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ResultFile))
}

// readResult reads the result run id left in dir.
func readResult(dir, id string) (*plugins.RunResult, error) {
	if dir == "" {
		return nil, os.ErrNotExist
	}
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, err
	}
	var res plugins.RunResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	if res.RunID != id || res.Status == "" {
		return nil, fmt.Errorf("tinylm: %s holds no result of run %s", filepath.Join(dir, ResultFile), id)
	}
	return &res, nil
}

// execute trains one proposal and turns every outcome into a RunResult.
func execute(ctx context.Context, req *plugins.RunRequest, rc runConfig) *plugins.RunResult {
	start := time.Now()
	res := &plugins.RunResult{RunID: req.RunID, WorkDir: req.WorkDir}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	infeasible := func(reason string) *plugins.RunResult {
		res.Status, res.Reason = plugins.StatusInfeasible, reason
		return res
	}
	h, err := DefaultHyper().Apply(req.Proposal.Edits)
	if err != nil {
		return infeasible(err.Error())
	}
	if err := h.Validate(); err != nil {
		return infeasible(err.Error())
	}
	corp, err := loadCorpusCached(rc.corpus)
	if err != nil {
		res.Status, res.Reason = plugins.StatusFailed, err.Error()
		return res
	}
	// The run's time limit (its high hours, which the caps hold for it)
	// stops training, as any trainer must: steps = 1e9 ends there.
	tctx := ctx
	if req.TimeLimitSeconds > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeLimitSeconds*float64(time.Second)))
		defer cancel()
	}
	out, err := Train(tctx, Config{Hyper: h, Corpus: corp, Steps: rc.steps, Seed: uint64(req.Seed), LogEvery: max(1, rc.steps/10), EvalPositions: rc.evalPositions})
	switch {
	case errors.Is(err, ErrDiverged):
		return infeasible(err.Error())
	case ctx.Err() == nil && tctx.Err() != nil:
		res.Status = plugins.StatusFailed
		res.Reason = fmt.Sprintf("time limit of %s exceeded after %d training steps were asked for", time.Duration(req.TimeLimitSeconds*float64(time.Second)), rc.steps)
		return res
	case ctx.Err() != nil:
		res.Status, res.Reason = plugins.StatusFailed, "cancelled"
		return res
	case err != nil:
		return infeasible(err.Error())
	}
	res.Status = plugins.StatusFinished
	res.Metric = out.ValBPB
	res.Logs = strings.Join(append(out.Log, fmt.Sprintf("val_bpb %.6f params %d corpus %s", out.ValBPB, out.Params, rc.corpus)), "\n")
	return res
}

var corpusCache sync.Map // name -> *Corpus

func loadCorpusCached(name string) (*Corpus, error) {
	if c, ok := corpusCache.Load(name); ok {
		return c.(*Corpus), nil
	}
	c, err := LoadCorpus(name)
	if err != nil {
		return nil, err
	}
	corpusCache.Store(name, c)
	return c, nil
}

// Wait blocks until the run ends or ctx is done. A run an earlier process
// ran to its end is read from its work directory (the handle). A RunID this
// process never started and that left no result (the process that ran it
// stopped first) is plugins.ErrUnknownRun, not a failed run: nothing was
// measured, so the runtime starts it again without spending an attempt.
func (t *Trainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	t.mu.Lock()
	r, ok := t.runs[h.RunID]
	t.mu.Unlock()
	if !ok {
		if res, err := readResult(h.Handle, h.RunID); err == nil {
			return res, nil
		}
		return nil, fmt.Errorf("tinylm: run %s: %w (this trainer process did not start it and it left no result: it was lost when an earlier process stopped): start it again", h.RunID, plugins.ErrUnknownRun)
	}
	select {
	case <-r.done:
		res := *r.res
		return &res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Cancel stops a run; Wait then reports it failed ("cancelled").
func (t *Trainer) Cancel(ctx context.Context, h *plugins.RunHandle) error {
	t.mu.Lock()
	r, ok := t.runs[h.RunID]
	t.mu.Unlock()
	if ok {
		r.cancel()
	}
	return nil
}
