package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// maxCriticEvalDataBytes is the most a critic_eval phase's pairs file may
// hold, as the spec's loader reads it (lang/load).
const maxCriticEvalDataBytes = 64 << 20

// CriticScore is one critic's figures on a set of labelled pairs: its
// metrics at each k, and its routing at each threshold with all its votes.
type CriticScore struct {
	Name    string           `json:"name"`
	Role    string           `json:"role"`
	Labels  string           `json:"labels"`
	Votes   int              `json:"votes"`
	Metrics []critic.Metrics `json:"metrics"`
	Routing []critic.Routing `json:"routing"`
	// Failed counts votes whose call failed or whose answer was no label
	// of the critic's space (each counts as the worst label).
	Failed int `json:"failed_votes"`
}

// CriticEvalFigures are a critic_eval phase's figures, journaled when it
// ends: every critic it evaluated, side by side.
type CriticEvalFigures struct {
	Phase    string         `json:"phase"`
	Data     string         `json:"data"`
	Split    string         `json:"split"`
	Examples int            `json:"examples"`
	Ladder5  int            `json:"ladder5_examples"`
	Critics  []*CriticScore `json:"critics"`
}

// CriticExamples are the pairs of split (train, holdout or all), the
// first limit of them when limit is above 0: what each critic sees, the
// labels it is scored against, and how many have a 5-way label.
func CriticExamples(ps []critic.Pair, split string, limit int) (ex []CriticExample, labels []critic.Example, n5 int) {
	for _, p := range ps {
		if split != "all" && p.Split != split {
			continue
		}
		if limit > 0 && len(ex) == limit {
			break
		}
		ex = append(ex, CriticExample{Env: p.Env, Task: p.Task, Parent: proposalOfProgram(p.Parent), Child: proposalOfProgram(p.Child), Summary: p.Child.Summary})
		labels = append(labels, critic.Example{Label3: p.Label3, Label5: p.Label5})
		if p.Label5 != "" {
			n5++
		}
	}
	return ex, labels, n5
}

func proposalOfProgram(p critic.Program) plugins.Proposal {
	return plugins.Proposal{ID: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch}
}

// ScoreCritic scores critic c's votes (votes[i] on example i) against the
// labels: the metrics of the majority of its first k votes for each of ks
// (its votes when ks is empty), and its routing at each threshold.
func ScoreCritic(c *plan.Critic, votes [][]string, labels []critic.Example, ks []int, ts []float64) (*CriticScore, error) {
	if len(votes) != len(labels) {
		return nil, fmt.Errorf("critic %s: votes on %d examples, %d labelled", c.Name, len(votes), len(labels))
	}
	cr := &CriticScore{Name: c.Name, Role: c.Role, Labels: c.Labels, Votes: c.Votes}
	ex := make([]critic.Example, len(labels))
	for i, l := range labels {
		ex[i] = critic.Example{Label3: l.Label3, Label5: l.Label5, Votes: votes[i]}
		for _, v := range votes[i] {
			if critic.Rank(c.Labels, v) < 0 {
				cr.Failed++
			}
		}
	}
	if len(ks) == 0 {
		ks = []int{c.Votes}
	}
	for _, k := range ks {
		if k > c.Votes {
			return nil, fmt.Errorf("k %d: critic %s votes %d times", k, c.Name, c.Votes)
		}
		m, err := critic.Evaluate(c.Labels, ex, k)
		if err != nil {
			return nil, fmt.Errorf("critic %s: %v", c.Name, err)
		}
		cr.Metrics = append(cr.Metrics, m)
	}
	rs, err := critic.Route(c.Labels, ex, c.Votes, ts)
	if err != nil {
		return nil, fmt.Errorf("critic %s: %v", c.Name, err)
	}
	cr.Routing = rs
	return cr, nil
}

// readCriticEvalData reads a critic_eval phase's pairs file, refusing one
// that is not the file its plan was priced on (its digest differs) or
// that leaves another number of examples.
func readCriticEvalData(ce *plan.CriticEval) ([]CriticExample, []critic.Example, int, error) {
	f, err := os.Open(ce.Data)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: pairs file: %v", errPermanent, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCriticEvalDataBytes+1))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: pairs file %s: %v", errPermanent, ce.Data, err)
	}
	if len(b) > maxCriticEvalDataBytes {
		return nil, nil, 0, fmt.Errorf("%w: pairs file %s is larger than %d bytes", errPermanent, ce.Data, maxCriticEvalDataBytes)
	}
	sum := sha256.Sum256(b)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != ce.Digest {
		return nil, nil, 0, fmt.Errorf("%w: pairs file %s changed since the plan was compiled (%s, the plan has %s): compile the spec again", errPermanent, ce.Data, got, ce.Digest)
	}
	ps, err := critic.ReadPairs(bytes.NewReader(b))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: pairs file %s: %v", errPermanent, ce.Data, err)
	}
	ex, labels, n5 := CriticExamples(ps, ce.Split, ce.Limit)
	if len(ex) != ce.Examples {
		return nil, nil, 0, fmt.Errorf("%w: pairs file %s has %d examples of split %s, the plan %d", errPermanent, ce.Data, len(ex), ce.Split, ce.Examples)
	}
	return ex, labels, n5, nil
}
