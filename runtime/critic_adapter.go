package runtime

import (
	"bytes"
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

// update makes one critic update (SFT, or a GRPO step) on samples: with a
// trainer, it reserves the update's cost, writes the batch, runs the
// trainer's update command and has the critic's plugin serve the adapter
// it wrote as name; without one, the critic's plugin trains itself on the
// samples. The critic role's state is then the new one, for every later
// call. A failed update leaves the critic as it was; both are journaled
// under key, so a resumed run does the same.
func (c *criticTrainingNode) update(key string, u *plan.CriticUpdate, step int, name, alg string, samples []ctSample) error {
	r, ro := c.s, c.s.roles[c.ct.Role]
	if d, ok := r.j.Call(journal.KindPolicy, key); ok {
		// Its reservation and charge were counted when the run opened.
		var pr policyRecord
		if err := json.Unmarshal(d, &pr); err == nil && pr.Failed == "" {
			r.policy.set(ro.Name, pr.State, pr.Step)
			r.measured.criticTraining(c.ct.Name, func(m *MeasuredCriticTraining) { m.Updates++ })
		}
		return nil
	}
	req := &plugins.UpdateRequest{Model: ro.Model, Algorithm: alg, LearningRate: u.LearningRate, KLCoef: u.KLCoef, Epochs: u.Epochs, WeightDecay: u.WeightDecay,
		State: r.policy.of(ro.Name), Config: r.config[ro.Plugin]}
	var measure *updateMeasure
	if u.Trainer != "" {
		job := updateJob{key: key, phase: c.ph.Name, what: "critic updates", trainer: u.Trainer, hold: updateReservation{GPUHours: u.GPUHours, USD: u.USD, GPUs: u.GPUs}}
		why, err := job.reserve(r)
		if err != nil {
			return err
		}
		if why != "" {
			return c.failed(key, step, len(samples), why, nil)
		}
		adapter, m, why, err := c.runCommand(job, u, step, alg, samples)
		if err != nil {
			return err
		}
		if measure = m; why != "" {
			return c.failed(key, step, len(samples), why, m)
		}
		req.Adapter = &plugins.Adapter{Name: name, Path: adapter}
	} else {
		for _, s := range samples {
			b, err := payload.Encode(PairRequest(s.pair, c.ct.Labels))
			if err != nil {
				return err
			}
			req.Samples = append(req.Samples, plugins.Sample{State: string(b), Completion: s.completion, Group: s.group, Reward: s.reward, Advantage: s.advantage,
				Proposal: proposalOfProgram(s.pair.Child)})
		}
	}
	var resp *plugins.UpdateResponse
	err := r.plugins.call(ro.Plugin, func(inst Instance) error {
		m := inst.LLM()
		if m == nil {
			return fmt.Errorf("%w: plugin %s is not an LLM", errPermanent, ro.Plugin)
		}
		var err error
		resp, err = m.Update(r.ctx, req)
		return err
	})
	switch {
	case err != nil && r.ctx.Err() != nil:
		return err
	case errors.Is(err, plugins.ErrUnsupported), errors.Is(err, plugins.ErrConfig), errors.Is(err, errPermanent):
		return fmt.Errorf("%w: critic training %s: critic %s cannot take its %s update: %v", errPermanent, c.ct.Name, ro.Name, u.Algorithm, err)
	case err != nil:
		return c.failed(key, step, len(samples), err.Error(), measure)
	}
	r.policy.set(ro.Name, resp.State, step)
	r.measured.criticTraining(c.ct.Name, func(m *MeasuredCriticTraining) { m.Updates++ })
	r.progress.logf("critic training %s: %s update %d on %d samples", c.ct.Name, u.Algorithm, step, len(samples))
	if err := r.j.Append(journal.KindPolicy, key, policyRecord{Step: step, State: resp.State, Stats: resp.Stats, Samples: len(samples), Measured: measure}); err != nil {
		return err
	}
	return r.j.Flush()
}

// failed journals a failed update, with what it measured: the critic
// stays as it was.
func (c *criticTrainingNode) failed(key string, step, samples int, why string, m *updateMeasure) error {
	r := c.s
	r.progress.logf("critic training %s: update %s failed; the critic stays: %s", c.ct.Name, key, why)
	if err := r.j.Append(journal.KindPolicy, key, policyRecord{Step: step, State: r.policy.of(c.ct.Role), Samples: samples, Failed: why, Measured: m}); err != nil {
		return err
	}
	return r.j.Flush()
}

// ctLine is one line of a critic update's batch file.
type ctLine struct {
	Step       int               `json:"step"`
	Group      string            `json:"group"`
	Prompt     []payload.Message `json:"prompt"`
	Completion string            `json:"completion"`
	Label      string            `json:"label"`
	Verdict    string            `json:"verdict"`
	Stratum    string            `json:"stratum,omitempty"`
	Reward     float64           `json:"reward"`
	Advantage  float64           `json:"advantage"`
	Policy     batchPolicy       `json:"policy"`
	// Reference is the frozen critic the update is measured against:
	// GRPO's KL reference, SDFT's teacher.
	Reference batchPolicy `json:"reference"`
	// Student is an SDFT line's critique by the critic itself (Policy
	// sampled it), and TeacherPrompt the critic's chat for the pair told
	// the measured outcome: Reference reading TeacherPrompt is the
	// outcome-conditioned teacher of a token-level objective along
	// Student's tokens.
	Student       *ctStudent        `json:"student,omitempty"`
	TeacherPrompt []payload.Message `json:"teacher_prompt,omitempty"`
}

// runCommand writes the batch and runs the update command on the
// trainer, with the update's time limit; it returns the adapter's
// directory and what the update measured, or why it failed.
func (c *criticTrainingNode) runCommand(job updateJob, u *plan.CriticUpdate, step int, alg string, samples []ctSample) (adapter string, m *updateMeasure, why string, err error) {
	r, ro := c.s, c.s.roles[c.ct.Role]
	dir, err := filepath.Abs(filepath.Join(r.dir, "work", strings.ReplaceAll(job.key, "/", "_")))
	if err != nil {
		return "", nil, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, "", err
	}
	batch := filepath.Join(dir, "batch.jsonl")
	if err := c.writeBatch(batch, ro, step, samples); err != nil {
		return "", nil, "", err
	}
	cur := c.policyOf(r.policy.at(ro.Name))
	pj := &plugins.PolicyJob{Step: step, BatchFile: batch, AdapterDir: filepath.Join(dir, "adapter"), BaseModel: ro.Model, PreviousAdapter: cur.Adapter, PreviousAdapterDir: cur.AdapterDir,
		Algorithm: alg, LearningRate: u.LearningRate, KLCoef: u.KLCoef, Epochs: u.Epochs, WeightDecay: u.WeightDecay, LoRARank: u.LoRARank}
	// The run's id names the update as a policy update's does
	// (PREFIX/update/N), PREFIX the training's sft or grpo.
	req := &plugins.RunRequest{RunID: c.key("%s/update/%d", u.Algorithm, step), Seed: int64(derive(r.v.Seed, job.key) >> 1), Config: r.config[u.Trainer],
		Executor: plugins.ExecutorSpec{Kind: r.v.Executor.Kind, Concurrency: r.v.Executor.Concurrency, GPUs: r.v.Executor.GPUs, Slurm: r.v.Executor.Slurm},
		GPUs:     u.GPUs, TimeLimitSeconds: u.TimeLimitSeconds, WorkDir: dir, Update: pj}
	res, m, err := job.run(r, req)
	switch {
	case err != nil && r.ctx.Err() != nil:
		return "", nil, "", err
	case errors.Is(err, plugins.ErrUnsupported), errors.Is(err, plugins.ErrConfig), errors.Is(err, errPermanent):
		return "", nil, "", fmt.Errorf("%w: critic training %s: update on plugin %s: %v", errPermanent, c.ct.Name, u.Trainer, err)
	case err != nil:
		return "", m, err.Error(), nil
	case res.Status != plugins.StatusFinished:
		return "", m, fmt.Sprintf("%s: %s", res.Status, res.Reason), nil
	}
	return pj.AdapterDir, m, "", nil
}

// writeBatch writes a critic update's batch: one line a sample, its prompt
// the critic's chat for the pair (no teacher's hint: the critic learns to
// judge without the label).
func (c *criticTrainingNode) writeBatch(path string, ro *plan.Role, step int, samples []ctSample) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, s := range samples {
		if s.completion == "" {
			return fmt.Errorf("batch: the sample of group %s has no completion", s.group)
		}
		req := PairRequest(s.pair, c.ct.Labels)
		prompt, err := c.chat(ro, req)
		if err != nil {
			return err
		}
		line := ctLine{Step: step, Group: s.group, Prompt: prompt, Completion: s.completion, Label: s.label, Verdict: s.verdict, Stratum: s.stratum,
			Reward: s.reward, Advantage: s.advantage, Policy: s.policy, Reference: c.ref, Student: s.student}
		if s.student != nil {
			req.Hint = &payload.CritiqueHint{Label: s.label}
			if line.TeacherPrompt, err = c.chat(ro, req); err != nil {
				return err
			}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// chat is the chat critic role ro is sent for req, with the criteria its
// calls read (the task's, or those its criteria_role generated).
func (c *criticTrainingNode) chat(ro *plan.Role, req *payload.CritiqueRequest) ([]payload.Message, error) {
	body, err := payload.Encode(req)
	if err != nil {
		return nil, err
	}
	return renderChat(ro, req, body, llmCall{c.s, ro, ""}.criteria(req))
}

// restore makes st, made by step, the critic's state again (a task's
// start, scope task). A served critic's plugin serves st's adapter in
// place of the current one (it loads it again and unloads the one it
// replaces), journaled under key, so a resumed run asks nothing again; a
// critic that trains itself needs no call.
func (c *criticTrainingNode) restore(key string, st []byte, step int) error {
	r, ro := c.s, c.s.roles[c.ct.Role]
	if d, ok := r.j.Call(journal.KindPolicy, key); ok {
		var pr policyRecord
		if err := json.Unmarshal(d, &pr); err != nil {
			return fmt.Errorf("%w: journal: critic state %s: %v", errPermanent, key, err)
		}
		r.policy.set(ro.Name, pr.State, pr.Step)
		return nil
	}
	cur := r.policy.of(ro.Name)
	to := c.policyOf(st, step)
	if bytes.Equal(cur, st) {
		return nil
	}
	if to.AdapterDir == "" || !c.served() {
		r.policy.set(ro.Name, st, step)
		return nil
	}
	var resp *plugins.UpdateResponse
	err := r.plugins.call(ro.Plugin, func(inst Instance) error {
		m := inst.LLM()
		if m == nil {
			return fmt.Errorf("%w: plugin %s is not an LLM", errPermanent, ro.Plugin)
		}
		var err error
		resp, err = m.Update(r.ctx, &plugins.UpdateRequest{Model: ro.Model, Algorithm: payload.AlgCriticSFT, State: cur, Config: r.config[ro.Plugin],
			Adapter: &plugins.Adapter{Name: to.Adapter, Path: to.AdapterDir}})
		return err
	})
	switch {
	case err != nil && r.ctx.Err() != nil:
		return err
	case err != nil:
		// The next call names st's adapter, and the plugin loads it then.
		r.progress.logf("critic training %s: serving %s again for the next task: %v", c.ct.Name, to.Adapter, err)
	default:
		st = resp.State
	}
	r.policy.set(ro.Name, st, step)
	if err := r.j.Append(journal.KindPolicy, key, policyRecord{Step: step, State: st}); err != nil {
		return err
	}
	return r.j.Flush()
}

// served is whether the critic's updates are made by a trainer, whose
// adapters the critic's plugin serves.
func (c *criticTrainingNode) served() bool {
	for _, u := range []*plan.CriticUpdate{c.ct.SFT, c.ct.GRPO} {
		if u != nil && u.Trainer != "" {
			return true
		}
	}
	return false
}
