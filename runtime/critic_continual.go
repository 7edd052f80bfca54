package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// continual adapts an evolution loop's screen critic as the loop runs
// (plan.CriticContinual): it collects the pairs the loop verifies and,
// before the rounds the plan names, makes an SDFT update on teacher
// critiques of the newest ones and a T-GRPO update on the critic's own
// verdicts. Its updates are a critic training's (criticTrainingNode), so
// they are reserved, journaled and resumed as those are; the pairs are
// rebuilt on resume from the loop's journaled runs.
type continual struct {
	cc   *plan.CriticContinual
	node *criticTrainingNode
	// pairs are the loop's verified pairs in order; grpoFrom and sdftFrom
	// the first not yet trained on by each kind of update.
	pairs              []critic.Pair
	grpoFrom, sdftFrom int
}

// newContinual is loop l's continual critic, nil when it is frozen.
func newContinual(s *service, sc scope, ph *plan.Phase, l *plan.Loop) *continual {
	cc := l.Continual
	if cc == nil {
		return nil
	}
	ct := &plan.CriticTraining{Name: cc.Name, Phase: ph.Name, Critic: cc.Critic, Role: cc.Role, Teacher: cc.Teacher, Labels: cc.Labels, SFT: cc.SFT, GRPO: cc.GRPO}
	return &continual{cc: cc, node: &criticTrainingNode{s: s, sc: sc, ph: ph, ct: ct}}
}

// observe records a verified child against the parent the critic judged
// it with: its 3-way label is the measured outcome.
func (c *continual) observe(t *taskInfo, parent, child plugins.Proposal, parentGain, childGain float64, key string) {
	if c == nil {
		return
	}
	c.pairs = append(c.pairs, critic.Pair{Env: t.Env, Task: t.Name, Parent: programOf(parent, ""), Child: programOf(child, c.summary(key)),
		Label3: critic.Label3(parentGain, childGain, false)})
}

func programOf(p plugins.Proposal, summary string) critic.Program {
	return critic.Program{ID: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch, Summary: summary}
}

// summary is the child's journaled summary (what the critic saw), read
// without charging the call again; "" when there was none.
func (c *continual) summary(key string) string {
	d, ok := c.node.s.j.Call(journal.KindCall, key+"/summarize")
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

// adapt makes the updates due before global round g: SDFT, then T-GRPO.
func (c *continual) adapt(g int) error {
	if c == nil || g <= 0 {
		return nil
	}
	if e := c.cc.SDFTEvery; e > 0 && g%e == 0 {
		if err := c.sdft(g); err != nil {
			return err
		}
	}
	if e := c.cc.GRPOEvery; e > 0 && g%e == 0 {
		return c.grpo(g)
	}
	return nil
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
	ps := c.newest(c.sdftFrom, c.cc.SDFTPairs)
	c.sdftFrom = len(c.pairs)
	var samples []ctSample
	for i := range ps {
		p := &ps[i]
		truth := pairLabel(p, c.cc.Labels)
		if truth == "" {
			continue
		}
		label, text, ok, err := n.teach(p, n.key("sdft/%d/%d", g, i), &payload.CritiqueHint{Label: truth})
		if err != nil {
			return err
		}
		if ok && label == truth {
			samples = append(samples, ctSample{pair: p, group: fmt.Sprintf("round-%d/pair-%d", g, i), completion: text, label: truth, verdict: label, stratum: stratumGuided, reward: 1, advantage: 1})
		}
	}
	if len(samples) == 0 {
		return nil
	}
	return n.update(n.key("sdft/%d", g), c.cc.SFT, g, fmt.Sprintf("%s-round-%d", c.cc.SFT.Adapter, g), payload.AlgCriticSFT, samples)
}

// grpo is one T-GRPO step on the newest new pairs: the critic training's
// GRPO step, its batch those pairs.
func (c *continual) grpo(g int) error {
	ps := c.newest(c.grpoFrom, c.cc.GRPOPairs)
	c.grpoFrom = len(c.pairs)
	if len(ps) == 0 {
		return nil
	}
	u := *c.cc.GRPO
	u.Batch = len(ps)
	ct := *c.node.ct
	ct.GRPO = &u
	step := &criticTrainingNode{s: c.node.s, sc: c.node.sc, ph: c.node.ph, ct: &ct}
	// grpoStep keys step t and makes update t+1: the update before
	// round g is update g.
	batch := make([]*critic.Pair, len(ps))
	for j := range ps {
		batch[j] = &ps[j]
	}
	return step.grpoStep(g-1, batch)
}
