package trainer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

func updateRequest(t *testing.T, id string, cfg map[string]any) *plugins.RunRequest {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	batch := filepath.Join(dir, "batch.jsonl")
	if err := os.WriteFile(batch, []byte(`{"group":"g0","reward":1,"advantage":0.5}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &plugins.RunRequest{RunID: id, Seed: 3, Config: cfg, GPUs: 2,
		Executor: plugins.ExecutorSpec{Kind: "local", Concurrency: 1, GPUs: 2}, WorkDir: dir,
		Update: &plugins.PolicyJob{Step: 4, BatchFile: batch, AdapterDir: filepath.Join(dir, "adapter"), BaseModel: "base; rm -rf /",
			PreviousAdapter: "$(touch pwned)", PreviousAdapterDir: "/prev dir", Algorithm: "dapo", LearningRate: 1e-6, ClipLow: 0.2, ClipHigh: 0.28, TokenLevel: true, Epochs: 4, WeightDecay: 0.01}}
}

// An update runs update_command with every value quoted, and finishes only
// when the command wrote an adapter.
func TestPolicyUpdate(t *testing.T) {
	t.Parallel()
	tr := newTrainer()
	cmd := `mkdir -p {{adapter_dir}} && wc -l < {{batch}} > {{adapter_dir}}/lines && ` +
		`printf '%s|' {{step}} {{algorithm}} {{learning_rate}} {{clip_low}} {{clip_high}} {{kl_coef}} {{token_level}} {{epochs}} {{weight_decay}} {{gpus}} {{base_model}} {{previous_adapter}} {{previous_adapter_dir}} > {{adapter_dir}}/args`
	req := updateRequest(t, "u1", map[string]any{"update_command": cmd})
	r := run(t, tr, req)
	if r.Status != plugins.StatusFinished {
		t.Fatalf("status %s: %s", r.Status, r.Reason)
	}
	got, _ := os.ReadFile(filepath.Join(req.Update.AdapterDir, "args"))
	if want := "4|dapo|1e-06|0.2|0.28|0|true|4|0.01|2|base; rm -rf /|$(touch pwned)|/prev dir|"; string(got) != want {
		t.Errorf("args %q, want %q", got, want)
	}
	// The job's values are in the environment as well, for a script that
	// takes no arguments.
	req = updateRequest(t, "u6", map[string]any{"update_command": `mkdir -p "$ASSAY_ADAPTER_DIR" && env | grep '^ASSAY_' | sort > "$ASSAY_ADAPTER_DIR/env"`})
	if r := run(t, tr, req); r.Status != plugins.StatusFinished {
		t.Fatalf("status %s: %s", r.Status, r.Reason)
	}
	env, _ := os.ReadFile(filepath.Join(req.Update.AdapterDir, "env"))
	for _, want := range []string{"ASSAY_STEP=4", "ASSAY_ALGORITHM=dapo", "ASSAY_LEARNING_RATE=1e-06", "ASSAY_CLIP_LOW=0.2", "ASSAY_CLIP_HIGH=0.28",
		"ASSAY_KL_COEF=0", "ASSAY_TOKEN_LEVEL=true", "ASSAY_EPOCHS=4", "ASSAY_WEIGHT_DECAY=0.01", "ASSAY_BASE_MODEL=base; rm -rf /",
		"ASSAY_PREVIOUS_ADAPTER=$(touch pwned)", "ASSAY_PREVIOUS_ADAPTER_DIR=/prev dir", "ASSAY_BATCH=" + req.Update.BatchFile, "ASSAY_GPUS=2"} {
		if !strings.Contains(string(env), want+"\n") {
			t.Errorf("the command's environment has no %s:\n%s", want, env)
		}
	}
	if strings.Contains(string(env), "ASSAY_LORA_RANK") {
		t.Errorf("a job that leaves the rank to the command exports ASSAY_LORA_RANK:\n%s", env)
	}
	if _, err := os.Stat(filepath.Join(req.WorkDir, "pwned")); err == nil {
		t.Error("a value ran as shell code")
	}
	// A rank the plan sets reaches the command both ways.
	req = updateRequest(t, "u7", map[string]any{"update_command": `mkdir -p {{adapter_dir}} && echo {{lora_rank}} "$ASSAY_LORA_RANK" > {{adapter_dir}}/rank`})
	req.Update.LoRARank = 32
	if r := run(t, tr, req); r.Status != plugins.StatusFinished {
		t.Fatalf("status %s: %s", r.Status, r.Reason)
	}
	if got, _ := os.ReadFile(filepath.Join(req.Update.AdapterDir, "rank")); string(got) != "32 32\n" {
		t.Errorf("rank %q, want the placeholder's and the variable's 32", got)
	}
	script, _ := os.ReadFile(filepath.Join(req.WorkDir, ScriptFile))
	if !strings.Contains(string(script), "export ASSAY_BATCH=") || strings.Contains(string(script), "ASSAY_CONFIG") {
		t.Errorf("run.sh does not export the batch:\n%s", script)
	}

	// No adapter written: failed, with why.
	req = updateRequest(t, "u2", map[string]any{"update_command": "true"})
	if r := run(t, tr, req); r.Status != plugins.StatusFailed || !strings.Contains(r.Reason, "wrote no adapter") {
		t.Errorf("no adapter: %s %q", r.Status, r.Reason)
	}
	// A failing command fails.
	req = updateRequest(t, "u3", map[string]any{"update_command": "echo oom >&2; exit 1"})
	if r := run(t, tr, req); r.Status != plugins.StatusFailed || !strings.Contains(r.Reason, "oom") {
		t.Errorf("failing command: %s %q", r.Status, r.Reason)
	}
	// A trainer without update_command cannot update a policy.
	req = updateRequest(t, "u4", map[string]any{"command": "true", "metric_regex": "m=(1)"})
	if _, err := tr.Start(t.Context(), req); !errors.Is(err, plugins.ErrUnsupported) {
		t.Errorf("no update_command: %v, want ErrUnsupported", err)
	}
	// An updater alone runs no proposal.
	rreq := request(t, "r1", map[string]any{"update_command": "true"}, nil)
	if _, err := tr.Start(t.Context(), rreq); !errors.Is(err, plugins.ErrInvalidConfig) {
		t.Errorf("run on an updater: %v, want ErrInvalidConfig", err)
	}
	// An unknown placeholder is the config's fault.
	req = updateRequest(t, "u5", map[string]any{"update_command": "echo {{config}}"})
	if _, err := tr.Start(t.Context(), req); !errors.Is(err, plugins.ErrInvalidConfig) || !strings.Contains(err.Error(), "adapter_dir") {
		t.Errorf("unknown placeholder: %v", err)
	}
}

// A policy update goes through the Slurm executor as a real run does: the
// command runs in a job, and the update finishes once it wrote an adapter.
func TestSlurmPolicyUpdate(t *testing.T) {
	requireSlurm(t)
	t.Parallel()
	req := updateRequest(t, "upd", map[string]any{"update_command": `mkdir -p {{adapter_dir}} && echo "$SLURM_JOB_ID" > {{adapter_dir}}/jobid && wc -l < {{batch}} > {{adapter_dir}}/lines`})
	req.RunID += "-" + filepath.Base(filepath.Dir(filepath.Dir(req.WorkDir))) // t.TempDir is unique: so are job names
	req.GPUs = 0
	req.Executor = plugins.ExecutorSpec{Kind: "slurm", Concurrency: 1, Slurm: map[string]any{"time_limit": "5"}}
	r := run(t, newTrainer(), req)
	if r.Status != plugins.StatusFinished {
		t.Fatalf("got %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(req.Update.AdapterDir, "jobid")); err != nil || strings.TrimSpace(string(b)) == "" {
		t.Fatalf("the update did not run under Slurm: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(req.Update.AdapterDir, "lines")); strings.TrimSpace(string(b)) != "1" {
		t.Errorf("the update saw %q batch lines, want 1", b)
	}
}

// An update is stopped at the time limit its request carries, as a real
// run is, and fails saying so, with the seconds and GPU-hours it took;
// timeout_infeasible does not apply (an update has no infeasible outcome).
func TestPolicyUpdateTimeLimit(t *testing.T) {
	t.Parallel()
	tr := newTrainer()
	req := updateRequest(t, "u8", map[string]any{"update_command": "sleep 5; mkdir -p {{adapter_dir}}; touch {{adapter_dir}}/a", "timeout_infeasible": true})
	req.TimeLimitSeconds = 1
	r := run(t, tr, req)
	if r.Status != plugins.StatusFailed || r.Reason != "time limit of 1s exceeded" {
		t.Fatalf("status %s %q, want failed at its time limit of 1s", r.Status, r.Reason)
	}
	if r.Seconds < 1 || r.Seconds > 4 || r.GPUHours != 2*r.Seconds/3600 {
		t.Errorf("took %gs, %g GPU-hours; want stopped at about 1s, 2 GPUs' worth", r.Seconds, r.GPUHours)
	}
	if _, err := os.Stat(filepath.Join(req.Update.AdapterDir, "a")); err == nil {
		t.Error("the command ran past its limit")
	}
}
