package runtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// Strata of a kept critique (the paper's names).
const (
	stratumSampled = "sampled"
	stratumRevised = "revised"
	stratumGuided  = "guided"
)

// ctKept is a pair's kept critique, journaled once the pair is done.
type ctKept struct {
	Pair       int    `json:"pair"`
	Stratum    string `json:"stratum"` // "" when the pair was left out
	Completion string `json:"completion,omitempty"`
	Label      string `json:"label"`
}

// synthesise has the teacher critique each pair: Samples critiques without
// the label, keeping the first whose verdict is the label; else Revisions
// told the most frequent wrong verdict is wrong; else (Guide) one told the
// label. It returns the kept critiques in pair order.
func (c *criticTrainingNode) synthesise(pairs []critic.Pair) ([]ctKept, error) {
	out := make([]ctKept, len(pairs))
	c.s.progress.start(c.ph.Name+".critiques", len(pairs), "pairs")
	err := parallel(len(pairs), c.s.concurrency(c.ct.Teacher), func(i int) error {
		k, err := c.critiquePair(i, &pairs[i])
		if err != nil {
			return err
		}
		out[i] = k
		c.s.progress.tick()
		c.s.measured.criticTraining(c.ct.Name, func(m *MeasuredCriticTraining) {
			switch k.Stratum {
			case stratumSampled:
				m.Sampled++
			case stratumRevised:
				m.Revised++
			case stratumGuided:
				m.Guided++
			default:
				m.Dropped++
			}
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, k := range out {
		if k.Stratum != "" {
			kept = append(kept, k)
		}
	}
	m := c.s.measured.snapshot().CriticTrainings[c.ct.Name]
	if m == nil {
		m = &MeasuredCriticTraining{}
	}
	c.s.progress.logf("critic training %s: %d critiques kept of %d pairs (sampled %d, revised %d, guided %d)", c.ct.Name, len(kept), len(pairs), m.Sampled, m.Revised, m.Guided)
	return kept, nil
}

// critiquePair is pair i's kept critique, from the journal when a resumed
// run finished it.
func (c *criticTrainingNode) critiquePair(i int, p *critic.Pair) (ctKept, error) {
	ct := c.ct
	key := c.key("kept/%d", i)
	if d, ok := c.s.j.Call(journal.KindCritic, key); ok {
		var k ctKept
		if err := json.Unmarshal(d, &k); err == nil {
			return k, nil
		}
	}
	truth := pairLabel(p, ct.Labels)
	k := ctKept{Pair: i, Label: truth}
	// Every call of a round is made, as the paper samples its 8 at once;
	// the round's first critique that matches is kept.
	round := func(what, stratum string, n int, hint *payload.CritiqueHint) ([]string, error) {
		var verdicts []string
		for s := 0; s < n; s++ {
			label, text, ok, err := c.teach(p, c.key("teach/%d/%s/%d", i, what, s), hint)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			verdicts = append(verdicts, label)
			if label == truth && k.Stratum == "" {
				k.Stratum, k.Completion = stratum, text
			}
		}
		return verdicts, nil
	}
	verdicts, err := round("sample", stratumSampled, ct.Samples, nil)
	if err != nil {
		return k, err
	}
	if k.Stratum == "" && ct.Revisions > 0 {
		if _, err := round("revise", stratumRevised, ct.Revisions, &payload.CritiqueHint{Exclude: mostFrequent(verdicts, ct.Labels)}); err != nil {
			return k, err
		}
	}
	if k.Stratum == "" && ct.Guide {
		if _, err := round("guide", stratumGuided, 1, &payload.CritiqueHint{Label: truth}); err != nil {
			return k, err
		}
	}
	return k, c.s.j.Append(journal.KindCritic, key, k)
}

// teach is one teacher call: its verdict and text; ok is false for a call
// that failed (it counts as no verdict).
func (c *criticTrainingNode) teach(p *critic.Pair, key string, hint *payload.CritiqueHint) (label, text string, ok bool, err error) {
	req := PairRequest(p, c.ct.Labels)
	req.Hint = hint
	var resp payload.CritiqueResponse
	text, err = c.s.completeText(c.ct.Teacher, key, req, &resp, false)
	if errors.Is(err, errCallFailed) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	return resp.Label, critiqueText(text, &resp), true, nil
}

// mostFrequent is the most frequent of the verdicts (the better label of
// a tie), "" for none.
func mostFrequent(verdicts []string, space string) string {
	n := map[string]int{}
	for _, v := range verdicts {
		n[v]++
	}
	best := ""
	for _, l := range payload.LabelSet(space) {
		if n[l] > n[best] {
			best = l
		}
	}
	return best
}

// sft fine-tunes the critic on the kept critiques: one update.
func (c *criticTrainingNode) sft(kept []ctKept, pairs []critic.Pair) error {
	if len(kept) == 0 {
		c.s.progress.logf("critic training %s: no critique kept; no SFT update", c.ct.Name)
		return nil
	}
	var samples []ctSample
	for _, k := range kept {
		samples = append(samples, ctSample{pair: &pairs[k.Pair], group: fmt.Sprintf("pair-%d", k.Pair), completion: k.Completion, label: k.Label, verdict: k.Label, stratum: k.Stratum, reward: 1, advantage: 1})
	}
	return c.update(c.key("sft"), c.ct.SFT, 1, c.ct.SFT.Adapter, payload.AlgCriticSFT, samples)
}

// ctSample is one line of a critic update's batch.
type ctSample struct {
	pair              *critic.Pair
	group             string
	completion        string
	label, verdict    string
	stratum           string
	reward, advantage float64
	policy            batchPolicy
	// student is an SDFT sample's critique by the critic itself (nil
	// elsewhere, and where its call failed).
	student *ctStudent
}

// ctStudent is the critic's own critique of an SDFT pair, sampled without
// the outcome by the adapter the line's policy names.
type ctStudent struct {
	Completion string `json:"completion"`
	Verdict    string `json:"verdict"`
}

// grpoStep is GRPO step t: Group verdicts of the critic on each of its
// Batch pairs (batch, as ctBalance.batch draws them), each rewarded +1
// when its direction is the pair's 3-way label and -1 otherwise,
// advantages relative to the pair's group, groups of equal rewards
// dropped; one update on the rest.
func (c *criticTrainingNode) grpoStep(t int, batch []*critic.Pair) error {
	g := c.ct.GRPO
	role := c.ct.Role
	st, stp := c.s.policy.at(role)
	pol := c.policyOf(st, stp)
	slots := make([][]*ctSample, g.Batch)
	for j := range slots {
		slots[j] = make([]*ctSample, g.Group)
	}
	err := parallel(g.Batch*g.Group, c.s.concurrency(role), func(n int) error {
		j, v := n/g.Group, n%g.Group
		p := batch[j]
		var resp payload.CritiqueResponse
		text, err := c.s.completeText(role, c.key("grpo/%d/%d/%d", t, j, v), PairRequest(p, c.ct.Labels), &resp, false)
		if errors.Is(err, errCallFailed) {
			return nil
		}
		if err != nil {
			return err
		}
		reward := -1.0
		if critic.Direction(resp.Label) == p.Label3 {
			reward = 1
		}
		s := ctSample{pair: p, group: fmt.Sprintf("step-%d/pair-%d", t+1, j), completion: critiqueText(text, &resp), label: pairLabel(p, c.ct.Labels), verdict: resp.Label, reward: reward, policy: pol}
		slots[j][v] = &s
		return nil
	})
	if err != nil {
		return err
	}
	var samples []ctSample
	var sum float64
	var n, correct int
	var byLabel MeasuredByLabel
	for _, slot := range slots {
		// A failed call has no verdict, and no line.
		var gr []ctSample
		for _, s := range slot {
			if s != nil {
				gr = append(gr, *s)
			}
		}
		rewards := make([]float64, len(gr))
		for i, s := range gr {
			rewards[i] = s.reward
			sum += s.reward
			n++
			if x := byLabel.of(s.pair.Label3); x != nil {
				x.Verdicts++
				if s.reward > 0 {
					x.Correct++
				}
			}
			if s.reward > 0 {
				correct++
			}
		}
		adv, ok := advantages(rewards)
		if !ok {
			continue
		}
		for i := range gr {
			gr[i].advantage = adv[i]
			samples = append(samples, gr[i])
		}
	}
	mean := 0.0
	if n > 0 {
		mean = sum / float64(n)
	}
	c.s.measured.criticTraining(c.ct.Name, func(m *MeasuredCriticTraining) {
		m.GRPOSteps++
		m.Verdicts += n
		m.Correct += correct
		if m.GRPOSteps == 1 {
			m.FirstReward = round6(mean)
		}
		m.LastReward = round6(mean)
		for _, l := range []string{critic.Improve, critic.Tie, critic.Lose} {
			to, from := m.ByLabel.of(l), byLabel.of(l)
			to.Verdicts += from.Verdicts
			to.Correct += from.Correct
		}
	})
	if len(samples) == 0 {
		return nil // every group agreed: nothing to learn from
	}
	return c.update(c.key("grpo/%d", t), g, t+1, fmt.Sprintf("%s-step-%d", g.Adapter, t+1), payload.AlgCriticGRPO, samples)
}

// policyOf names the critic's current adapter for a batch line (pi_old).
func (c *criticTrainingNode) policyOf(st []byte, step int) batchPolicy {
	var cur struct {
		Adapter string `json:"adapter"`
		Path    string `json:"path"`
	}
	if len(st) > 0 {
		_ = json.Unmarshal(st, &cur)
	}
	return batchPolicy{Adapter: cur.Adapter, AdapterDir: cur.Path, Step: step}
}
