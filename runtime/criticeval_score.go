package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// maxCriticEvalDataBytes is the most a critic_eval phase's pairs file may
// hold, as the spec's loader checks it (lang/load).
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
	// ByStratum are the metrics on the pairs of each teacher-assistance
	// stratum (seed 002's table 12), when the pairs file gives strata.
	ByStratum []StratumScore `json:"by_stratum,omitempty"`
}

// StratumScore is a critic's metrics at each k on the pairs of one
// stratum.
type StratumScore struct {
	Stratum  string           `json:"stratum"`
	Examples int              `json:"examples"`
	Metrics  []critic.Metrics `json:"metrics"`
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
		labels = append(labels, critic.Example{Label3: p.Label3, Label5: p.Label5, Stratum: p.Stratum})
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
		ex[i] = critic.Example{Label3: l.Label3, Label5: l.Label5, Stratum: l.Stratum, Votes: votes[i]}
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
	var err error
	if cr.ByStratum, err = byStratum(c, ex, ks); err != nil {
		return nil, err
	}
	rs, err := critic.Route(c.Labels, ex, c.Votes, ts)
	if err != nil {
		return nil, fmt.Errorf("critic %s: %v", c.Name, err)
	}
	cr.Routing = rs
	return cr, nil
}

// byStratum is the metrics at each k on the examples of each stratum the
// examples give, easiest first; nil when none gives one.
func byStratum(c *plan.Critic, ex []critic.Example, ks []int) ([]StratumScore, error) {
	var out []StratumScore
	for _, st := range critic.Strata() {
		var sub []critic.Example
		for _, e := range ex {
			if e.Stratum == st {
				sub = append(sub, e)
			}
		}
		if len(sub) == 0 {
			continue
		}
		ss := StratumScore{Stratum: st, Examples: len(sub)}
		for _, k := range ks {
			m, err := critic.Evaluate(c.Labels, sub, k)
			if err != nil {
				return nil, fmt.Errorf("critic %s, stratum %s: %v", c.Name, st, err)
			}
			ss.Metrics = append(ss.Metrics, m)
		}
		out = append(out, ss)
	}
	return out, nil
}

// readCriticEvalData reads a critic_eval phase's pairs file when the
// phase starts (at most 64 MiB, in the export's schema) and keeps the
// first Examples pairs of its split, the count the plan priced; it
// refuses a missing or malformed file, or one with fewer such pairs. It
// returns the file's digest, which the phase journals.
func readCriticEvalData(ce *plan.CriticEval) (ex []CriticExample, labels []critic.Example, n5 int, digest string, err error) {
	path := ce.DataPath()
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: critic_eval pairs file %s: %s", errPermanent, path, fmt.Sprintf(format, a...))
	}
	// Stat first: opening a FIFO could block.
	if st, err := os.Stat(path); err != nil {
		return nil, nil, 0, "", fail("%v: supply the file (assay export pairs writes one) and run again", unwrapPath(err))
	} else if !st.Mode().IsRegular() {
		return nil, nil, 0, "", fail("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, "", fail("%v", unwrapPath(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCriticEvalDataBytes+1))
	if err != nil {
		return nil, nil, 0, "", fail("%v", err)
	}
	if len(b) > maxCriticEvalDataBytes {
		return nil, nil, 0, "", fail("larger than %d bytes", maxCriticEvalDataBytes)
	}
	ps, err := critic.ReadPairs(bytes.NewReader(b))
	if err != nil {
		return nil, nil, 0, "", fail("%v (the schema of assay export pairs, docs/pairs.md)", err)
	}
	ps, kept := critic.KeepParents(ps, ce.MinImproving)
	ex, labels, n5 = CriticExamples(ps, ce.Split, ce.Examples)
	if len(ex) < ce.Examples || ce.Examples < 1 {
		filtered := ""
		if ce.MinImproving > 0 {
			filtered = fmt.Sprintf(" (after dropping the %d pairs of the %d of %d parents with fewer than %d improving children)", kept.DroppedPairs, kept.Parents-kept.KeptParents, kept.Parents, ce.MinImproving)
		}
		return nil, nil, 0, "", fail("holds %d pairs of split %s%s, and the plan judges and prices %d: supply a file with at least that many, or lower the critic_eval's limit", len(ex), ce.Split, filtered, ce.Examples)
	}
	sum := sha256.Sum256(b)
	return ex, labels, n5, "sha256:" + hex.EncodeToString(sum[:]), nil
}

// unwrapPath is err without the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
