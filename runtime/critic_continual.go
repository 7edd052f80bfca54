package runtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// continual adapts an evolution loop's screen critic as the loop runs
// (plan.CriticContinual): it collects the pairs the loop verifies and
// makes the updates of the plan's schedule, before the rounds it names:
// an SDFT update on teacher critiques of the newest pairs, a T-GRPO
// update on the critic's own verdicts. Its updates are those of the
// plan's critic training (criticTrainingNode over cc.Training), so
// they are reserved, journaled and resumed as those are; the pairs are
// rebuilt on resume from the loop's journaled runs. With scope task (the
// paper's), each task adapts on its own pairs from the critic as the loop
// found it, which it serves again when the task starts; with scope loop,
// one adapter is carried across the tasks.
type continual struct {
	cc   *plan.CriticContinual
	node *criticTrainingNode
	// due are the schedule's updates by task ("env/task") and round.
	due map[dueAt][]plan.ContinualUpdate
	// pairs are the loop's verified pairs in order; grpoFrom and sdftFrom
	// the first not yet trained on by each kind of update.
	pairs              []critic.Pair
	grpoFrom, sdftFrom int
	// start is the critic's state as the loop found it (the trained
	// checkpoint) and the step that made it: each task starts from it
	// with scope task, and it is every update's reference.
	start     []byte
	startStep int
}

// dueAt is a round of a task of the loop.
type dueAt struct {
	task  plan.TaskRef
	round int
}

// newContinual is the continual critic of evolution phase ph, nil when it
// is frozen. Every update of its schedule must fall before a round the
// loop runs, of a task of its split (tasks, with rounds each), and be of
// a kind the plan describes: one that never would is refused here,
// before anything is spent.
func newContinual(s *service, sc scope, ph *plan.Phase, tasks []*taskInfo, rounds int) (*continual, error) {
	cc := ph.Evolution.Continual
	if cc == nil {
		return nil, nil
	}
	if cc.Training == nil {
		return nil, fmt.Errorf("%w: the continual critic of phase %s has no training", errPermanent, ph.Name)
	}
	in := map[plan.TaskRef]bool{}
	for _, t := range tasks {
		in[plan.TaskRef{Env: t.Env, Task: t.Name}] = true
	}
	c := &continual{cc: cc, due: map[dueAt][]plan.ContinualUpdate{}, node: &criticTrainingNode{s: s, sc: sc, ph: ph, ct: cc.Training}}
	for _, u := range cc.Updates {
		kind := (u.Kind == plan.UpdateSDFT && cc.Training.SFT != nil) || (u.Kind == plan.UpdateGRPO && cc.Training.GRPO != nil)
		if !in[u.Task] || u.Round < 0 || u.Round >= rounds || !kind {
			return nil, fmt.Errorf("%w: phase %s: the continual critic's update %s before round %d of task %s/%s never runs: the loop has no such task, round or update",
				errPermanent, ph.Name, u.Kind, u.Round, u.Task.Env, u.Task.Task)
		}
		at := dueAt{u.Task, u.Round}
		c.due[at] = append(c.due[at], u)
	}
	return c, nil
}

// observe records a verified child against the parent the critic judged
// it with: its 3-way label is the measured outcome, its summary the one
// journaled under summaryKey (SummaryKey: of the program measured).
func (c *continual) observe(t *taskInfo, parent, child plugins.Proposal, parentGain, childGain float64, summaryKey string) {
	if c == nil {
		return
	}
	c.pairs = append(c.pairs, critic.Pair{Env: t.Env, Task: t.Name, Parent: programOf(parent, ""), Child: programOf(child, c.summary(summaryKey)),
		Label3: critic.Label3(parentGain, childGain, false)})
}

func programOf(p plugins.Proposal, summary string) critic.Program {
	return critic.Program{ID: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch, Summary: summary}
}

// summary is the summary journaled under key, read without charging the
// call again; "" when there was none.
func (c *continual) summary(key string) string {
	d, ok := c.node.s.j.Call(journal.KindCall, key)
	if !ok {
		return ""
	}
	var rec callRecord
	var resp payload.SummarizeResponse
	if json.Unmarshal(d, &rec) != nil || rec.Failed != "" || payload.Decode(rec.Payload, &resp) != nil {
		return ""
	}
	return resp.Summary
}

// adapt makes the updates the plan's schedule has before round round of
// task ti, t, in its order, each keyed by its Key. A task's first round
// starts it (startTask).
func (c *continual) adapt(ti int, t *taskInfo, round int) error {
	if c == nil {
		return nil
	}
	if round == 0 {
		if err := c.startTask(ti); err != nil {
			return err
		}
	}
	for _, u := range c.due[dueAt{plan.TaskRef{Env: t.Env, Task: t.Name}, round}] {
		var err error
		if u.Kind == plan.UpdateSDFT {
			err = c.sdft(u.Key)
		} else {
			err = c.grpo(u.Key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// startTask begins task ti. The first task takes the critic as the loop
// found it as the start of every task and the reference of every update;
// with scope task, each later one trains on its own pairs only, from that
// start, which serves its calls from its first on.
func (c *continual) startTask(ti int) error {
	n := c.node
	if ti == 0 {
		c.start, c.startStep = n.s.policy.at(n.ct.Role)
		n.ref = n.policyOf(c.start, c.startStep)
		return nil
	}
	if c.cc.Scope != plan.ContinualTask {
		return nil
	}
	c.grpoFrom, c.sdftFrom = len(c.pairs), len(c.pairs)
	return n.restore(n.key("task/%d", ti), c.start, c.startStep)
}

// newest is the last n pairs from index from on.
func (c *continual) newest(from, n int) []critic.Pair {
	ps := c.pairs[from:]
	return ps[max(len(ps)-n, 0):]
}

// sdft has the teacher critique the newest new pairs, told each one's
// measured outcome, and fine-tunes the critic on the critiques whose
// verdict is that outcome: one update.
func (c *continual) sdft(g int) error {
	n := c.node
	ct := c.cc.Training
	ps := c.newest(c.sdftFrom, c.cc.SDFTPairs)
	c.sdftFrom = len(c.pairs)
	var samples []ctSample
	for i := range ps {
		p := &ps[i]
		truth := pairLabel(p, ct.Labels)
		if truth == "" {
			continue
		}
		label, text, ok, err := n.teach(p, n.key("sdft/%d/%d", g, i), &payload.CritiqueHint{Label: truth})
		if err != nil {
			return err
		}
		if !ok || label != truth {
			continue
		}
		s := ctSample{pair: p, group: fmt.Sprintf("round-%d/pair-%d", g, i), completion: text, label: truth, verdict: label, stratum: stratumGuided, reward: 1, advantage: 1}
		if ct.SFT.Trainer != "" {
			if err := c.student(&s, n.key("sdft/%d/%d/student", g, i)); err != nil {
				return err
			}
		}
		samples = append(samples, s)
	}
	if len(samples) == 0 {
		return nil
	}
	return n.update(n.key("sdft/%d", g), ct.SFT, g, fmt.Sprintf("%s-round-%d", ct.SFT.Adapter, g), payload.AlgCriticSFT, samples)
}

// grpo is one T-GRPO step on the newest new pairs: the critic training's
// GRPO step, its batch those pairs.
func (c *continual) grpo(g int) error {
	ps := c.newest(c.grpoFrom, c.cc.GRPOPairs)
	c.grpoFrom = len(c.pairs)
	if len(ps) == 0 {
		return nil
	}
	// The plan's batch is the most one update takes: this one takes the
	// pairs there are.
	u := *c.cc.Training.GRPO
	u.Batch = len(ps)
	ct := *c.node.ct
	ct.GRPO = &u
	step := &criticTrainingNode{s: c.node.s, sc: c.node.sc, ph: c.node.ph, ct: &ct, ref: c.node.ref}
	// grpoStep keys step t and makes update t+1: the update before
	// round g is update g.
	batch := make([]*critic.Pair, len(ps))
	for j := range ps {
		batch[j] = &ps[j]
	}
	return step.grpoStep(g-1, batch)
}

// student adds to SDFT sample s the critic's own critique of its pair (a
// call of the critic as it is, without the outcome, journaled under key):
// the trajectory a token-level objective distils the teacher's
// outcome-conditioned predictions into. A failed call leaves s without
// one (its update command then trains on the teacher's critique).
func (c *continual) student(s *ctSample, key string) error {
	n := c.node
	var resp payload.CritiqueResponse
	ct := c.cc.Training
	text, err := n.s.completeText(ct.Role, key, PairRequest(s.pair, ct.Labels), &resp, false)
	if errors.Is(err, errCallFailed) {
		return nil
	}
	if err != nil {
		return err
	}
	s.student = &ctStudent{Completion: critiqueText(text, &resp), Verdict: resp.Label}
	s.policy = n.policyOf(n.s.policy.at(ct.Role))
	return nil
}
