package critic

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The bounds of a pairs file (docs/pairs.md).
const (
	// MaxPairs is the most pairs one file holds.
	MaxPairs = 1 << 20
	// MaxPairLine is the longest JSON line ReadPairs accepts.
	MaxPairLine = 4 << 20
)

// Program is one side of a pair.
type Program struct {
	// Commit is the program's commit id where the candidate has one; ""
	// for a program that is a set of knob edits.
	Commit    string            `json:"commit"`
	ID        string            `json:"id,omitempty"`
	Text      string            `json:"text,omitempty"`
	Mechanism string            `json:"mechanism,omitempty"`
	Edits     map[string]string `json:"edits,omitempty"`
	Patch     string            `json:"patch,omitempty"`
	// Summary is the summarizer's description of the program, when the
	// run made one.
	Summary string `json:"summary,omitempty"`
	// Metric is the program's measured metric.
	Metric float64 `json:"metric"`
}

// Pair is one labelled parent/child pair.
type Pair struct {
	Run      string `json:"run"`
	Plan     string `json:"plan"`
	PlanHash string `json:"plan_hash"`
	Variant  string `json:"variant,omitempty"`
	Phase    string `json:"phase,omitempty"`
	Env      string `json:"env"`
	Task     string `json:"task"`
	// Candidate is the child's candidate key in its run; RunKey the key of
	// the real run that measured it.
	Candidate string `json:"candidate"`
	RunKey    string `json:"run_key"`
	// ParentCandidate is the parent's candidate key; "" for the task's
	// reference configuration.
	ParentCandidate string  `json:"parent_candidate,omitempty"`
	Minimize        bool    `json:"minimize"`
	Parent          Program `json:"parent"`
	Child           Program `json:"child"`
	// Idea is the child's idea text.
	Idea string `json:"idea"`
	// Relative is the signed relative improvement of the child over its
	// parent (positive is better); absent when the parent's metric is 0.
	Relative *float64 `json:"relative_improvement,omitempty"`
	// Label3 is improve, tie or lose; Label5 the 5-way label, absent when
	// the parent has fewer than three improving children.
	Label3 string `json:"label3"`
	Label5 string `json:"label5,omitempty"`
	// Split is "train" or "holdout" (Split).
	Split string `json:"split"`
	// Stratum is the teacher assistance the pair's kept critique took
	// (Sampled, Revised or Guided; seed 002's strata), when known: a
	// critic evaluation scores each stratum apart as well.
	Stratum string `json:"stratum,omitempty"`
}

// Teacher-assistance strata of a pair, easiest first: a critique sampled
// without the label matched it, one did after a hint ruled out the most
// frequent wrong label, or the teacher was told the label.
const (
	Sampled = "sampled"
	Revised = "revised"
	Guided  = "guided"
)

// Strata are the strata in order, easiest first.
func Strata() []string { return []string{Sampled, Revised, Guided} }

// WritePairs writes one pair per line.
func WritePairs(w io.Writer, ps []Pair) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range ps {
		if err := enc.Encode(&ps[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadPairs reads pairs written by WritePairs (or any file in that
// schema): at most MaxPairs lines of at most MaxPairLine bytes; blank lines
// are skipped. Each pair needs a 3-way label; a label of either space
// must be one of the space's labels.
func ReadPairs(r io.Reader) ([]Pair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxPairLine)
	var out []Pair
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(trimSpace(b)) == 0 {
			continue
		}
		if len(out) == MaxPairs {
			return nil, fmt.Errorf("line %d: more than %d pairs", line, MaxPairs)
		}
		var p Pair
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if Rank(Space3, p.Label3) < 0 {
			return nil, fmt.Errorf("line %d: label3 %q: use improve, tie or lose", line, p.Label3)
		}
		if p.Label5 != "" && Rank(Space5, p.Label5) < 0 {
			return nil, fmt.Errorf("line %d: label5 %q: use BigWin, MediumWin, SmallWin, Tie or Lose", line, p.Label5)
		}
		if p.Stratum != "" && !slices.Contains(Strata(), p.Stratum) {
			return nil, fmt.Errorf("line %d: stratum %q: use sampled, revised or guided", line, p.Stratum)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, MaxPairLine)
		}
		return nil, err
	}
	return out, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
