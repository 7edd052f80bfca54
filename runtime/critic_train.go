package runtime

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/payload"
)

// criticTrainingKey prefixes every journal key of a critic training; its
// calls keep their answers' text, which SFT trains on.
const criticTrainingKey = "critic_training/"

// pairLabel is p's label in space ("" when the pair has none there).
func pairLabel(p *critic.Pair, space string) string {
	if space == payload.Labels5 {
		return p.Label5
	}
	return p.Label3
}

// PairRequest is what a critic (and a teacher) is asked of labelled pair
// p, in label space labels.
func PairRequest(p *critic.Pair, labels string) *payload.CritiqueRequest {
	return &payload.CritiqueRequest{Task: p.Task, Env: p.Env, Parent: proposalOfProgram(p.Parent), Child: proposalOfProgram(p.Child), Summary: p.Child.Summary, Labels: labels}
}

// readCriticPairs reads the pairs of ct's split that have a label in its
// space, in file order, with the export's reader (docs/pairs.md): at
// most ct.MaxPairs pairs, each line bounded. The pairs of parents with
// fewer than ct.MinImproving improving children in the file are left
// out first; kept says how many.
func readCriticPairs(ct *plan.CriticTraining) (_ []critic.Pair, kept critic.Filtered, _ error) {
	f, err := os.Open(ct.PairsPath())
	if err != nil {
		return nil, kept, err
	}
	defer f.Close()
	ps, err := critic.ReadPairs(f)
	if err != nil {
		return nil, kept, fmt.Errorf("%s: %v", ct.Pairs, err)
	}
	if len(ps) > ct.MaxPairs {
		return nil, kept, fmt.Errorf("%s: more than %d pairs", ct.Pairs, ct.MaxPairs)
	}
	ps, kept = critic.KeepParents(ps, ct.MinImproving)
	out := ps[:0]
	for i := range ps {
		if (ct.Split == "" || ps[i].Split == ct.Split) && pairLabel(&ps[i], ct.Labels) != "" {
			out = append(out, ps[i])
		}
	}
	return out, kept, nil
}

// loadCriticPairs reads ct's pairs and refuses a file that holds fewer
// than the plan needs.
func loadCriticPairs(ct *plan.CriticTraining) ([]critic.Pair, critic.Filtered, error) {
	pairs, kept, err := readCriticPairs(ct)
	if err != nil {
		return nil, kept, fmt.Errorf("%w: critic training %s: %v", errPermanent, ct.Name, err)
	}
	if len(pairs) < max(ct.Examples, 1) {
		filtered := ""
		if ct.MinImproving > 0 {
			filtered = fmt.Sprintf(" (after dropping the %d pairs of the %d of %d parents with fewer than %d improving children)", kept.DroppedPairs, kept.Parents-kept.KeptParents, kept.Parents, ct.MinImproving)
		}
		return nil, kept, fmt.Errorf("%w: critic training %s: %s holds %d pairs of split %q labelled in %s%s, and the plan needs at least %d",
			errPermanent, ct.Name, ct.Pairs, len(pairs), ct.Split, ct.Labels, filtered, max(ct.Examples, 1))
	}
	if _, err := newCTBalance(ct, grpoPool(ct, pairs)); err != nil {
		return nil, kept, err
	}
	return pairs, kept, nil
}

// criticTrainingNode is a critic_training phase: the teacher's critiques
// of the first Examples pairs, SFT on those kept, then GRPO steps on the
// pairs after them. Each call, reservation and update is journaled, so a
// resumed run makes none twice.
type criticTrainingNode struct {
	s  *service
	sc scope
	ph *plan.Phase
	ct *plan.CriticTraining
	// ref is the critic its updates are measured against (a batch line's
	// reference): before SFT, the critic as the phase found it; in GRPO,
	// the critic as GRPO found it; in a loop, as the loop found it.
	ref batchPolicy
}

func newCriticTraining(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	return &criticTrainingNode{s: s, sc: sc, ph: ph, ct: ph.CriticTraining}, nil
}

func (c *criticTrainingNode) Execute() error {
	ct := c.ct
	pairs, kept, err := loadCriticPairs(ct)
	if err != nil {
		return err
	}
	c.s.measured.criticTraining(ct.Name, func(m *MeasuredCriticTraining) { m.Pool = poolFigures(pairs, kept) })
	c.ref = c.policyOf(c.s.policy.at(ct.Role))
	if ct.SFT != nil {
		kept, err := c.synthesise(pairs[:ct.Examples])
		if err != nil {
			return err
		}
		if err := c.sft(kept, pairs); err != nil {
			return err
		}
	}
	if ct.GRPO != nil {
		pool := grpoPool(ct, pairs)
		bal, err := newCTBalance(ct, pool)
		if err != nil {
			return err
		}
		c.ref = c.policyOf(c.s.policy.at(ct.Role))
		for t := 0; t < ct.GRPO.Steps; t++ {
			if err := c.s.ctx.Err(); err != nil {
				return err
			}
			if err := c.grpoStep(t, bal.batch(c.s.v.Seed, ct, pool, t)); err != nil {
				return err
			}
		}
	}
	return nil
}

// key is the journal key of one of the training's records.
func (c *criticTrainingNode) key(format string, a ...any) string {
	return criticTrainingKey + c.ct.Name + "/" + fmt.Sprintf(format, a...)
}

// critiqueText is the text SFT trains on: the answer as the model gave it,
// or the parsed answer's JSON from a plugin that gives none.
func critiqueText(text string, resp *payload.CritiqueResponse) string {
	if text != "" {
		return text
	}
	b, _ := json.Marshal(resp)
	return string(b)
}

// MeasuredCriticTraining is a critic training's figures: the teacher's
// kept critiques by stratum (the paper's Sampled, Revised and Guided) and
// the pairs it left out, the updates made, and the GRPO steps' mean
// reward and accuracy of the critic's verdicts.
type MeasuredCriticTraining struct {
	Sampled     int     `json:"sampled"`
	Revised     int     `json:"revised"`
	Guided      int     `json:"guided"`
	Dropped     int     `json:"dropped,omitempty"`
	Updates     int     `json:"updates"`
	GRPOSteps   int     `json:"grpo_steps,omitempty"`
	Verdicts    int     `json:"verdicts,omitempty"`
	Correct     int     `json:"correct,omitempty"`
	FirstReward float64 `json:"first_step_reward,omitempty"`
	LastReward  float64 `json:"last_step_reward,omitempty"`
	// Pool is the pairs the training read, after the parents' filter.
	Pool MeasuredPool `json:"pool,omitzero"`
	// ByLabel is the GRPO verdicts and the right ones by the pair's 3-way
	// label, the class the reward judges: whether the critic learns the
	// minority classes too.
	ByLabel MeasuredByLabel `json:"grpo_by_label,omitzero"`
}

// MeasuredPool is a critic training's pairs: the parents of the file and
// those the filter kept (min_improving_children), the pairs of its split
// kept and the improving ones among them.
type MeasuredPool struct {
	Parents      int `json:"parents"`
	KeptParents  int `json:"kept_parents"`
	DroppedPairs int `json:"dropped_pairs"`
	Pairs        int `json:"pairs"`
	Improve      int `json:"improve"`
}

// poolFigures are the figures of pairs, the split's pairs kept by the
// filter whose figures kept has.
func poolFigures(pairs []critic.Pair, kept critic.Filtered) MeasuredPool {
	m := MeasuredPool{Parents: kept.Parents, KeptParents: kept.KeptParents, DroppedPairs: kept.DroppedPairs, Pairs: len(pairs)}
	for i := range pairs {
		if pairs[i].Label3 == critic.Improve {
			m.Improve++
		}
	}
	return m
}

// MeasuredByLabel is a critic training's GRPO verdicts by 3-way label.
type MeasuredByLabel struct {
	Improve MeasuredLabel `json:"improve,omitzero"`
	Tie     MeasuredLabel `json:"tie,omitzero"`
	Lose    MeasuredLabel `json:"lose,omitzero"`
}

// MeasuredLabel is the GRPO verdicts on the pairs of one label.
type MeasuredLabel struct {
	Verdicts int `json:"verdicts"`
	Correct  int `json:"correct"`
}

// of is label's figures (nil for no 3-way label).
func (b *MeasuredByLabel) of(label string) *MeasuredLabel {
	switch label {
	case critic.Improve:
		return &b.Improve
	case critic.Tie:
		return &b.Tie
	case critic.Lose:
		return &b.Lose
	}
	return nil
}

// criticTraining applies f to training name's figures under the lock.
func (m *measured) criticTraining(name string, f func(*MeasuredCriticTraining)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m.CriticTrainings == nil {
		m.m.CriticTrainings = map[string]*MeasuredCriticTraining{}
	}
	t := m.m.CriticTrainings[name]
	if t == nil {
		t = &MeasuredCriticTraining{}
		m.m.CriticTrainings[name] = t
	}
	f(t)
}

// copyCriticTrainings is a deep copy of the figures, for a snapshot.
func copyCriticTrainings(in map[string]*MeasuredCriticTraining) map[string]*MeasuredCriticTraining {
	if len(in) == 0 {
		return nil
	}
	out := map[string]*MeasuredCriticTraining{}
	for k, v := range in {
		c := *v
		out[k] = &c
	}
	return out
}
