package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// batchLine is one line of an update's batch file (JSONL): one sampled
// proposal with its group, reward and group-relative advantage. Prompt is
// the chat the proposer was sent (RenderChat of State, the proposer
// request the proposal was sampled from) and Completion its answer exactly
// as the model returned it: the text to reinforce. Proposal is the
// candidate as it was built and scored; Policy the policy that sampled it
// (pi_old of the ratio).
type batchLine struct {
	Step       int               `json:"step"`
	Group      string            `json:"group"`
	Prompt     []payload.Message `json:"prompt"`
	Completion string            `json:"completion"`
	State      json.RawMessage   `json:"state"`
	Proposal   plugins.Proposal  `json:"proposal"`
	Reward     float64           `json:"reward"`
	Advantage  float64           `json:"advantage"`
	Policy     batchPolicy       `json:"policy"`
}

// batchPolicy is a batch line's sampling policy: the adapter the proposer
// was served under ("" for the base model), the directory of its weights,
// and the policy step that trained it (0: the base model).
type batchPolicy struct {
	Adapter    string `json:"adapter"`
	AdapterDir string `json:"adapter_dir"`
	Step       int    `json:"step"`
}

// trainPolicy makes step t's policy update with the loop's update command:
// it reserves the update's cost, writes the batch, runs the command on the
// update's trainer plugin (through the spec's executor, with the update's
// time limit), charges what it measured, and has the proposer's plugin
// serve the adapter it wrote. A failed update leaves the policy as it was,
// journaled, like a failed plugin update. After a crash the journaled
// reservation is counted again (restoreUpdates), and Start on the same
// work directory returns the update already submitted instead of running
// it twice.
func (r *rlLoop) trainPolicy(t int, key string, samples []plugins.Sample, states []*payload.ProposeRequest) error {
	l, u := r.l, r.l.Update
	ro := r.s.roles[l.Proposer]
	if d, ok := r.s.j.Call(journal.KindPolicy, key); ok {
		r.replayUpdate(d)
		return nil
	}
	if len(samples) == 0 {
		return nil // every group dropped: nothing to train on
	}
	job := updateJob{key: key, phase: r.sc.phase, what: "policy updates", trainer: u.Trainer, hold: updateReservation{GPUHours: u.GPUHours, USD: u.USD, GPUs: u.GPUs}}
	if why, err := job.reserve(r.s); err != nil {
		return err
	} else if why != "" {
		return r.failUpdate(t, key, len(samples), why, nil)
	}
	pj, name, req, err := r.prepareUpdate(t, key, samples, states)
	if err != nil {
		return err
	}
	res, m, err := job.run(r.s, req)
	switch {
	case err != nil && r.s.ctx.Err() != nil:
		return err
	case errors.Is(err, plugins.ErrUnsupported), errors.Is(err, plugins.ErrConfig), errors.Is(err, errPermanent):
		return fmt.Errorf("%w: loop %s: policy update on plugin %s: %v", errPermanent, l.Name, u.Trainer, err)
	case err != nil:
		return r.failUpdate(t, key, len(samples), err.Error(), m)
	case res.Status != plugins.StatusFinished:
		return r.failUpdate(t, key, len(samples), fmt.Sprintf("%s: %s", res.Status, res.Reason), m)
	}
	var resp *plugins.UpdateResponse
	err = r.s.plugins.call(ro.Plugin, func(inst Instance) error {
		m := inst.LLM()
		if m == nil {
			return fmt.Errorf("%w: plugin %s is not an LLM", errPermanent, ro.Plugin)
		}
		var err error
		resp, err = m.Update(r.s.ctx, &plugins.UpdateRequest{Model: ro.Model, LearningRate: l.LearningRate, State: r.s.policy.of(ro.Name), Config: r.s.config[ro.Plugin],
			Algorithm: l.Algorithm, ClipLow: l.ClipLow, ClipHigh: l.ClipHigh, KLCoef: l.KLCoef, TokenLevel: l.TokenLevel, Epochs: l.Epochs, WeightDecay: l.WeightDecay,
			Adapter: &plugins.Adapter{Name: name, Path: pj.AdapterDir}})
		return err
	})
	switch {
	case err != nil && r.s.ctx.Err() != nil:
		return err
	case errors.Is(err, plugins.ErrUnsupported), errors.Is(err, plugins.ErrConfig), errors.Is(err, errPermanent):
		return fmt.Errorf("%w: loop %s: proposer %s cannot serve the trained adapter: %v", errPermanent, l.Name, ro.Name, err)
	case err != nil:
		return r.failUpdate(t, key, len(samples), "loading the adapter: "+err.Error(), m)
	}
	r.s.policy.set(ro.Name, resp.State, t+1)
	r.s.n.update()
	r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Updates++ })
	r.s.progress.logf("policy update %d: adapter %s", t+1, name)
	if err := r.s.j.Append(journal.KindPolicy, key, policyRecord{Step: t + 1, State: resp.State, Stats: resp.Stats, Samples: len(samples), Measured: m}); err != nil {
		return err
	}
	return r.s.j.Flush()
}

// replayUpdate takes a journaled update (policy record d) back on resume:
// its policy state restored (its reservation and charge were counted when
// the run opened).
func (r *rlLoop) replayUpdate(d []byte) {
	l := r.l
	var pr policyRecord
	if err := json.Unmarshal(d, &pr); err == nil && pr.Failed == "" {
		r.s.policy.set(l.Proposer, pr.State, pr.Step)
		r.s.n.update()
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Updates++ })
	}
}

// failUpdate journals a failed update, with what it measured: the policy
// stays as it was.
func (r *rlLoop) failUpdate(t int, key string, samples int, why string, m *updateMeasure) error {
	ro := r.s.roles[r.l.Proposer]
	r.s.progress.logf("policy update at step %d failed; the policy stays: %s", t+1, why)
	if err := r.s.j.Append(journal.KindPolicy, key, policyRecord{Step: t + 1, State: r.s.policy.of(ro.Name), Samples: samples, Failed: why, Measured: m}); err != nil {
		return err
	}
	return r.s.j.Flush()
}

// prepareUpdate writes the batch (for a trainer that reads it) and makes
// the run request of the update's command, with its job and the adapter's
// name.
func (r *rlLoop) prepareUpdate(t int, key string, samples []plugins.Sample, states []*payload.ProposeRequest) (*plugins.PolicyJob, string, *plugins.RunRequest, error) {
	l, u := r.l, r.l.Update
	ro := r.s.roles[l.Proposer]
	dir, err := filepath.Abs(filepath.Join(r.s.dir, "work", strings.ReplaceAll(key, "/", "_")))
	if err != nil {
		return nil, "", nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", nil, err
	}
	batch, err := r.batchFile(dir, ro, t, samples, states)
	if err != nil {
		return nil, "", nil, err
	}
	// The current adapter, which the update continues from, as the
	// proposer's plugin named it in the policy state it returned (each
	// batch line names the policy that sampled it).
	var prev struct {
		Adapter string `json:"adapter"`
		Path    string `json:"path"`
	}
	if p := r.s.policy.of(ro.Name); len(p) > 0 {
		_ = json.Unmarshal(p, &prev)
	}
	name := fmt.Sprintf("%s-step-%d", u.Adapter, t+1)
	job := &plugins.PolicyJob{Step: t + 1, BatchFile: batch, AdapterDir: filepath.Join(dir, "adapter"), BaseModel: ro.Model, PreviousAdapter: prev.Adapter, PreviousAdapterDir: prev.Path,
		Algorithm: l.Algorithm, LearningRate: l.LearningRate, ClipLow: l.ClipLow, ClipHigh: l.ClipHigh, KLCoef: l.KLCoef, TokenLevel: l.TokenLevel, Epochs: l.Epochs, WeightDecay: l.WeightDecay, LoRARank: l.LoRARank}
	req := &plugins.RunRequest{RunID: key, Seed: int64(derive(r.s.v.Seed, key) >> 1), Config: r.s.config[u.Trainer],
		Executor: plugins.ExecutorSpec{Kind: r.s.v.Executor.Kind, Concurrency: r.s.v.Executor.Concurrency, GPUs: r.s.v.Executor.GPUs, Slurm: r.s.v.Executor.Slurm},
		GPUs:     u.GPUs, TimeLimitSeconds: u.TimeLimitSeconds, WorkDir: dir, Update: job}
	return job, name, req, nil
}

// batchFile writes step t's batch into dir and returns its path, or
// returns "" for a trainer that says it never reads one
// (plugins.BatchReader). The trainer is asked here, the one place the
// file is written, so every trainer that does not say so gets it whole.
func (r *rlLoop) batchFile(dir string, ro *plan.Role, t int, samples []plugins.Sample, states []*payload.ProposeRequest) (string, error) {
	reads := true
	err := r.s.plugins.call(r.l.Update.Trainer, func(inst Instance) error {
		if br, ok := inst.Trainer().(plugins.BatchReader); ok {
			reads = br.ReadsBatch()
		}
		return nil
	})
	if err != nil || !reads {
		return "", err
	}
	if err := encodeStates(samples, states); err != nil {
		return "", err
	}
	batch := filepath.Join(dir, "batch.jsonl")
	return batch, writeBatch(batch, ro, t+1, samples)
}
