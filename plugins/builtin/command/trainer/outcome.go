package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

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
		// An update has no infeasible outcome: past its limit it failed.
		if cfg.TimeoutInfeasible && rec.Update == nil {
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
	if st.State == executor.Failed && st.ExitCode == 124 && rec.TimeLimitSeconds > 0 && strings.Contains(stderr, timeLimitMarker) {
		timedOut()
		return r
	}
	if rec.Update != nil {
		return updateOutcome(rec, r, st, stderr)
	}
	for _, re := range cfg.InfeasiblePatterns {
		if m := re.FindString(stderr); m != "" {
			r.Status, r.Reason = plugins.StatusInfeasible, fmt.Sprintf("stderr matches infeasible pattern %q: %s", re.String(), strings.TrimSpace(m))
			return r
		}
	}
	if st.State == executor.Failed {
		if st.Signal == 0 && slices.Contains(cfg.InfeasibleExitCodes, st.ExitCode) {
			r.Status, r.Reason = plugins.StatusInfeasible, fmt.Sprintf("exit code %d (infeasible_exit_codes)", st.ExitCode)
			return r
		}
		// The script ran and failed on its own: the program's error, whose
		// stderr (in Logs) says why.
		r.Status, r.Reason = plugins.StatusError, st.Reason
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
		r.Status, r.Reason = plugins.StatusError, "the command succeeded but reported no metric: "+err.Error()
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
