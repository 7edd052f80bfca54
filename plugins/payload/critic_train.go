package payload

import "fmt"

// Algorithms of a critic's update (plugins.UpdateRequest.Algorithm): a
// plugin that trains a critic itself tells them from a proposer's.
const (
	AlgCriticSFT  = "critic-sft"
	AlgCriticGRPO = "critic-grpo"
)

// CritiqueHint is what a critic training tells its teacher beyond the
// pair: Exclude, a verdict the teacher's earlier critiques gave most often
// and that is wrong (the paper's Revised stratum); or Label, the execution
// label itself, for reasoning consistent with it (the Guided stratum).
type CritiqueHint struct {
	Exclude string `json:"exclude,omitempty"`
	Label   string `json:"label,omitempty"`
}

// Text is the hint as a served teacher reads it, after the critic's own
// prompt.
func (h *CritiqueHint) Text() string {
	switch {
	case h == nil:
		return ""
	case h.Label != "":
		return fmt.Sprintf("The measured outcome of this pair is %q. Write your critique so that its reasoning is consistent with that outcome, and give %q as your verdict.", h.Label, h.Label)
	case h.Exclude != "":
		return fmt.Sprintf("Your earlier critiques of this pair predicted %q, and that prediction is wrong. Consider the pair again and give another verdict.", h.Exclude)
	}
	return ""
}
