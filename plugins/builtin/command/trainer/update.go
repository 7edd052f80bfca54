package trainer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// prepareUpdate makes a policy update's directory: run.json and run.sh,
// which runs the config's update_command on the batch the runtime wrote.
// The command's placeholders are batch, adapter_dir, step, base_model,
// previous_adapter, previous_adapter_dir, algorithm, learning_rate, clip_low, clip_high,
// kl_coef, token_level, epochs, weight_decay, lora_rank, gpus, workdir, seed and
// run_id; every value reaches the command as a quoted variable, never as
// code, and the job's values also as ASSAY_* variables (updateValues).
func (t *Trainer) prepareUpdate(req *plugins.RunRequest, cfg *Config, dir string, limit time.Duration) (*prepared, error) {
	if cfg.update == nil {
		return nil, fmt.Errorf("config.update_command: missing; a policy update needs the command that trains the policy on a batch: %w", plugins.ErrUnsupported)
	}
	u := req.Update
	if !filepath.IsAbs(u.BatchFile) || !filepath.IsAbs(u.AdapterDir) {
		return nil, fmt.Errorf("policy update %s: the batch file %q and adapter directory %q must be absolute paths", req.RunID, u.BatchFile, u.AdapterDir)
	}
	if _, err := os.Stat(u.BatchFile); err != nil {
		return nil, fmt.Errorf("policy update %s: the batch: %w", req.RunID, err)
	}
	// A half-written adapter of an earlier attempt must not pass for this one's.
	if err := os.RemoveAll(u.AdapterDir); err != nil {
		return nil, err
	}
	rec := &record{RunID: req.RunID, Seed: req.Seed, Config: req.Config, Executor: req.Executor, GPUs: req.GPUs,
		TimeLimitSeconds: limit.Seconds(), Submitted: time.Now().UTC(), Update: u}
	vars := updateValues(u)
	vars["gpus"], vars["workdir"], vars["seed"], vars["run_id"] = strconv.Itoa(req.GPUs), dir, strconv.FormatInt(req.Seed, 10), req.RunID
	rec.Values = vars
	defs, err := commandValues(cfg.update, vars, vars)
	if err != nil {
		return nil, &configError{fmt.Errorf("config.update_command: %w", err)}
	}
	script, err := runScript(rec, cfg, cfg.update, dir, dir, u.BatchFile, defs, limit)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ScriptFile), []byte(script), 0o755); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(dir, RecordFile), rec); err != nil {
		return nil, err
	}
	p := &prepared{rec: rec, cfg: cfg, dir: dir, job: &executor.Job{
		Name:   "assay-" + unsafeRE.ReplaceAllString(req.RunID, "_"),
		Dir:    dir,
		Script: filepath.Join(dir, ScriptFile),
		Stdout: filepath.Join(dir, StdoutFile),
		Stderr: filepath.Join(dir, StderrFile),
		GPUs:   req.GPUs,
		Pass:   cfg.PassEnv,
	}}
	if limit > 0 {
		p.job.TimeLimit = limit + 30*time.Second
	}
	return p, nil
}

// updateValues are a policy update's job values by placeholder name; the
// command also sees each as ASSAY_NAME (upper case), so a training script
// can read its whole job from the environment.
func updateValues(u *plugins.PolicyJob) map[string]string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return map[string]string{
		"batch": u.BatchFile, "adapter_dir": u.AdapterDir, "step": strconv.Itoa(u.Step),
		"base_model": u.BaseModel, "previous_adapter": u.PreviousAdapter, "previous_adapter_dir": u.PreviousAdapterDir, "algorithm": u.Algorithm,
		"learning_rate": f(u.LearningRate), "clip_low": f(u.ClipLow), "clip_high": f(u.ClipHigh),
		"kl_coef": f(u.KLCoef), "token_level": strconv.FormatBool(u.TokenLevel), "epochs": strconv.Itoa(u.Epochs),
		"weight_decay": f(u.WeightDecay), "lora_rank": loraRank(u.LoRARank),
	}
}

// loraRank is the lora_rank placeholder's value: empty when the spec
// leaves the rank to the command (runScript then exports no
// ASSAY_LORA_RANK).
func loraRank(r int) string {
	if r <= 0 {
		return ""
	}
	return strconv.Itoa(r)
}

// updateOutcome is a policy update's result once its script ended: it
// finished when the command exited 0 and wrote something into the adapter
// directory; anything else failed (an update has no infeasible outcome).
func updateOutcome(rec *record, r *plugins.RunResult, st executor.Status, stderr string) *plugins.RunResult {
	if st.State == executor.Failed {
		r.Status, r.Reason = plugins.StatusFailed, st.Reason
		if last := lastLines(stderr, 1); last != "" {
			r.Reason += "; stderr ends: " + last
		}
		return r
	}
	ents, err := os.ReadDir(rec.Update.AdapterDir)
	if err != nil || len(ents) == 0 {
		r.Status = plugins.StatusFailed
		r.Reason = "the update command succeeded but wrote no adapter into " + rec.Update.AdapterDir
		if err != nil && !os.IsNotExist(err) {
			r.Reason += ": " + strings.TrimSpace(err.Error())
		}
		return r
	}
	r.Status = plugins.StatusFinished
	return r
}
