package runtime

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// criticTrainingKey prefixes every journal key of a critic training; its
// calls keep their answers' text, which SFT trains on.
const criticTrainingKey = "critic_training/"

// maxPairLine bounds one line of a critic training's pairs file: the
// export's own bound, which validate reads the file with, so validate
// accepts no line the run refuses.
const maxPairLine = critic.MaxPairLine

// ctPair is one labelled pair of a critic training's file: the fields of
// the export's schema (docs/pairs.md) a critic sees, and its labels.
type ctPair struct {
	Env    string    `json:"env"`
	Task   string    `json:"task"`
	Parent ctProgram `json:"parent"`
	Child  ctProgram `json:"child"`
	Label3 string    `json:"label3"`
	Label5 string    `json:"label5"`
	Split  string    `json:"split"`
}

// ctProgram is one side of a pair.
type ctProgram struct {
	ID        string            `json:"id"`
	Text      string            `json:"text"`
	Mechanism string            `json:"mechanism"`
	Edits     map[string]string `json:"edits"`
	Patch     string            `json:"patch"`
	Summary   string            `json:"summary"`
}

func (p ctProgram) proposal() plugins.Proposal {
	return plugins.Proposal{ID: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch}
}

// label is the pair's label in space ("" when the pair has none there).
func (p *ctPair) label(space string) string {
	if space == payload.Labels5 {
		return p.Label5
	}
	return p.Label3
}

// request is what the critic (and the teacher) is asked of the pair.
func (p *ctPair) request(labels string) *payload.CritiqueRequest {
	return &payload.CritiqueRequest{Task: p.Task, Env: p.Env, Parent: p.Parent.proposal(), Child: p.Child.proposal(), Summary: p.Child.Summary, Labels: labels}
}

// readCriticPairs reads the pairs of ct's split that have a label in its
// space, in file order: at most ct.MaxPairs lines of at most maxPairLine
// bytes each, every line a pair with a known 3-way label.
func readCriticPairs(ct *plan.CriticTraining) ([]ctPair, error) {
	f, err := os.Open(ct.PairsPath())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxPairLine)
	var out []ctPair
	line := 0
	for sc.Scan() {
		line++
		if line > ct.MaxPairs {
			return nil, fmt.Errorf("%s: more than %d lines", ct.Pairs, ct.MaxPairs)
		}
		b := sc.Bytes()
		if len(trimBlank(b)) == 0 {
			continue
		}
		var p ctPair
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", ct.Pairs, line, err)
		}
		if critic.Rank(critic.Space3, p.Label3) < 0 {
			return nil, fmt.Errorf("%s:%d: label3 %q: use improve, tie or lose", ct.Pairs, line, p.Label3)
		}
		if p.Label5 != "" && critic.Rank(critic.Space5, p.Label5) < 0 {
			return nil, fmt.Errorf("%s:%d: label5 %q: use BigWin, MediumWin, SmallWin, Tie or Lose", ct.Pairs, line, p.Label5)
		}
		if (ct.Split == "" || p.Split == ct.Split) && p.label(ct.Labels) != "" {
			out = append(out, p)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: longer than %d bytes", ct.Pairs, line+1, maxPairLine)
		}
		return nil, err
	}
	return out, nil
}

// loadCriticPairs reads ct's pairs and refuses a file that holds fewer
// than the plan needs.
func loadCriticPairs(ct *plan.CriticTraining) ([]ctPair, error) {
	pairs, err := readCriticPairs(ct)
	if err != nil {
		return nil, fmt.Errorf("%w: critic training %s: %v", errPermanent, ct.Name, err)
	}
	if len(pairs) < max(ct.Examples, 1) {
		return nil, fmt.Errorf("%w: critic training %s: %s holds %d pairs of split %q labelled in %s, and the plan needs at least %d",
			errPermanent, ct.Name, ct.Pairs, len(pairs), ct.Split, ct.Labels, max(ct.Examples, 1))
	}
	if _, err := newCTBalance(ct, grpoPool(ct, pairs)); err != nil {
		return nil, err
	}
	return pairs, nil
}

func trimBlank(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
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
}

func newCriticTraining(s *service, sc scope, _ int, ph *plan.Phase) (phaseNode, error) {
	for _, ct := range s.v.CriticTrainings {
		if ct.Phase == ph.Name {
			return &criticTrainingNode{s: s, sc: sc, ph: ph, ct: ct}, nil
		}
	}
	return nil, fmt.Errorf("%w: the plan has no critic training of phase %s", errPermanent, ph.Name)
}

func (c *criticTrainingNode) Execute() error {
	ct := c.ct
	pairs, err := loadCriticPairs(ct)
	if err != nil {
		return err
	}
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
	// ByLabel is the GRPO verdicts and the right ones by the pair's 3-way
	// label, the class the reward judges: whether the critic learns the
	// minority classes too.
	ByLabel MeasuredByLabel `json:"grpo_by_label,omitzero"`
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
