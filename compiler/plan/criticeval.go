package plan

import (
	"path/filepath"

	"github.com/assay-lang/assay/lang/diag"
)

// PhaseCriticEval is a static critic evaluation: each of its critics
// judges every example of a labelled pairs file, votes times, and is
// scored against the file's labels. It makes LLM calls only.
const PhaseCriticEval = "critic_eval"

// MaxCriticEvalCalls bounds the critic calls of one evaluation (examples
// x votes, summed over its critics).
const MaxCriticEvalCalls = 1 << 22

// CriticEval is what a critic_eval phase judges and reports.
type CriticEval struct {
	// Data is the pairs file (docs/pairs.md) as the spec wrote it:
	// absolute, or relative to the directory of the file Source names,
	// as a critic training's pairs. The plan holds nothing of its
	// content: the phase reads it when it starts, refuses one with fewer
	// than Examples pairs of the split, and journals its digest, so a
	// resumed run refuses a file that changed since.
	Data   string     `json:"data"`
	Source diag.Range `json:"source"`
	// Split is the split judged (train, holdout or all); Examples the
	// count the estimate prices: the split's first Examples pairs, each
	// judged Votes times by every critic.
	Split    string `json:"split"`
	Examples int    `json:"examples"`
	// MinImproving drops, before the split is taken, every pair whose
	// parent has fewer children labelled improve in the file
	// (critic.KeepParents); 0 keeps every pair.
	MinImproving int `json:"min_improving_children,omitempty"`
	// Critics names the critics of the variant evaluated, in order.
	Critics []string `json:"critics"`
	// K lists the numbers of votes whose majority is scored; empty: each
	// critic's own votes.
	K []int `json:"k,omitempty"`
	// Thresholds are the routing thresholds T reported.
	Thresholds []float64 `json:"thresholds"`
}

// DataPath is the file of ce's pairs: Data as written, relative to the
// file that names it (the compiler made a --set path absolute).
func (ce *CriticEval) DataPath() string { return specRelative(ce.Data, ce.Source) }

// specRelative is p, relative to the directory of the file src names
// unless it is absolute.
func specRelative(p string, src diag.Range) string {
	if f := src.Filename; !filepath.IsAbs(p) && f != "" {
		return filepath.Join(filepath.Dir(f), p)
	}
	return p
}
