package runtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// update makes one policy-gradient step on a slice of the rollout's groups:
// group-relative advantages, zero-variance groups dropped (or kept with
// zero advantages when the loop says keep).
func (r *rlLoop) update(t int, groups []*group) error {
	l := r.l
	fig, samples, states := r.stepSamples(t, groups)
	fig.Samples = len(samples)
	if err := r.applyUpdate(t, fmt.Sprintf("%s/update/%d", l.Name, t), samples, states); err != nil {
		return err
	}
	s := r.s.budget.Spent()
	fig.RealRuns, fig.USD, fig.GPUHours, fig.BestGain = s.RealRuns, round6(s.USD), round6(s.GPUHours), r.s.n.best()
	if err := r.s.j.Append(journal.KindStep, fmt.Sprintf("%s/%d", l.Name, t+1), fig); err != nil {
		return err
	}
	return r.s.j.Flush()
}

// stepSamples are a step's figures and the samples of its kept groups,
// with the request each sample was proposed from.
func (r *rlLoop) stepSamples(t int, groups []*group) (StepFigures, []plugins.Sample, []*payload.ProposeRequest) {
	l := r.l
	var samples []plugins.Sample
	var states []*payload.ProposeRequest
	fig := StepFigures{Loop: l.Name, Step: t + 1, Groups: len(groups)}
	var sum float64
	var n int
	for _, gr := range groups {
		// A candidate whose real run the budget could not pay has no
		// reward: it joins neither the group's advantages nor the update.
		var rewarded []int
		var rewards []float64
		for i, c := range gr.Cands {
			fig.Candidates++
			if c.Routed {
				fig.Routed++
			}
			if c.Skipped {
				fig.Unrewarded++
				continue
			}
			rewarded = append(rewarded, i)
			rewards = append(rewards, c.Reward)
			sum += c.Reward
			n++
			fig.MeanPredict += c.Predicted
		}
		adv, ok := advantages(rewards)
		gr.Adv = make([]float64, len(gr.Cands))
		for k, i := range rewarded {
			gr.Adv[i] = adv[k]
		}
		gr.Kept = (ok || l.ZeroVariance == "keep") && len(rewarded) > 0
		if !gr.Kept {
			fig.Dropped++
			continue
		}
		for _, i := range rewarded {
			c := gr.Cands[i]
			if c.Infeasible && c.Proposal.ID == "" && len(c.Proposal.Edits) == 0 {
				continue // the proposer gave nothing to reinforce
			}
			// The sample is what the policy answered (its text, and the
			// policy that answered), with the candidate as it was built
			// and scored.
			s := plugins.Sample{Proposal: c.Proposal, Advantage: gr.Adv[i], Group: gr.State, Reward: c.Reward}
			var st *payload.ProposeRequest
			if c.sample != nil {
				s.Completion, s.Policy, st = c.sample.text, c.sample.policy, c.sample.req
			}
			samples = append(samples, s)
			states = append(states, st)
		}
	}
	if n > 0 {
		fig.MeanReward = sum / float64(n)
		fig.MeanPredict /= float64(n)
	}
	return fig, samples, states
}

// encodeStates sets each sample's state to the request it was proposed
// from, encoded only when an update needs it: a proposer that cannot train
// never does.
func encodeStates(samples []plugins.Sample, states []*payload.ProposeRequest) error {
	for i, st := range states {
		if st == nil {
			continue
		}
		b, err := payload.Encode(st)
		if err != nil {
			return err
		}
		samples[i].State = string(b)
	}
	return nil
}

// applyUpdate updates the policy on a step's samples: through the loop's
// reserved update when the plan gives it one, else as the journal says
// (a resumed run) or by one call to the proposer's plugin.
func (r *rlLoop) applyUpdate(t int, key string, samples []plugins.Sample, states []*payload.ProposeRequest) error {
	l := r.l
	if l.Update != nil {
		return r.trainPolicy(t, key, samples, states)
	}
	if d, ok := r.s.j.Call(journal.KindPolicy, key); ok {
		var pr policyRecord
		if err := json.Unmarshal(d, &pr); err == nil && pr.Failed == "" {
			r.s.policy.set(l.Proposer, pr.State, pr.Step)
			r.s.n.update()
		}
		return nil
	}
	if len(samples) == 0 || r.fixedPolicy {
		return nil
	}
	if err := encodeStates(samples, states); err != nil {
		return err
	}
	return r.callUpdate(t, key, samples)
}

// callUpdate asks the proposer's plugin for one policy update; a failed
// update leaves the policy as it was, journaled so a resumed run does the
// same.
func (r *rlLoop) callUpdate(t int, key string, samples []plugins.Sample) error {
	l := r.l
	ro := r.s.roles[l.Proposer]
	var resp *plugins.UpdateResponse
	req := &plugins.UpdateRequest{Model: ro.Model, LearningRate: l.LearningRate, Samples: samples, State: r.s.policy.of(ro.Name), Config: r.s.config[ro.Plugin],
		Algorithm: l.Algorithm, ClipLow: l.ClipLow, ClipHigh: l.ClipHigh, KLCoef: l.KLCoef, TokenLevel: l.TokenLevel, Epochs: l.Epochs, WeightDecay: l.WeightDecay}
	err := r.s.plugins.call(ro.Plugin, func(inst Instance) error {
		m := inst.LLM()
		if m == nil {
			return fmt.Errorf("%w: plugin %s is not an LLM", errPermanent, ro.Plugin)
		}
		var err error
		resp, err = m.Update(r.s.ctx, req)
		return err
	})
	switch {
	case errors.Is(err, plugins.ErrUnsupported):
		r.fixedPolicy = true
		r.s.progress.logf("proposer %s cannot be trained through its plugin; the policy stays fixed", ro.Name)
	case err != nil && r.s.ctx.Err() != nil:
		return err
	case err != nil:
		r.s.progress.logf("policy update at step %d failed; the policy stays: %v", t+1, err)
		return r.s.j.Append(journal.KindPolicy, key, policyRecord{Step: t + 1, State: r.s.policy.of(ro.Name), Samples: len(samples), Failed: err.Error()})
	default:
		r.s.policy.set(ro.Name, resp.State, t+1)
		r.s.n.update()
		return r.s.j.Append(journal.KindPolicy, key, policyRecord{Step: t + 1, State: resp.State, Stats: resp.Stats, Samples: len(samples)})
	}
	return nil
}
