package plan

// PhaseCriticEval is a static critic evaluation: each of its critics
// judges every example of a labelled pairs file, votes times, and is
// scored against the file's labels. It makes LLM calls only.
const PhaseCriticEval = "critic_eval"

// MaxCriticEvalCalls bounds the critic calls of one evaluation (examples
// x votes, summed over its critics).
const MaxCriticEvalCalls = 1 << 22

// CriticEval is what a critic_eval phase judges and reports.
type CriticEval struct {
	// Data is the pairs file (docs/pairs.md), as the spec's loader found
	// it; Digest its sha256, which the runtime checks before the first
	// call, so a run judges the pairs its plan was priced on.
	Data   string `json:"data"`
	Digest string `json:"digest"`
	// Split is the split judged (train, holdout or all); Limit, when
	// above 0, keeps the first Limit pairs of it. Examples is how many
	// pairs that leaves: every critic judges each of them Votes times.
	Split    string `json:"split"`
	Limit    int    `json:"limit,omitempty"`
	Examples int    `json:"examples"`
	// Critics names the critics of the variant evaluated, in order.
	Critics []string `json:"critics"`
	// K lists the numbers of votes whose majority is scored; empty: each
	// critic's own votes.
	K []int `json:"k,omitempty"`
	// Thresholds are the routing thresholds T reported.
	Thresholds []float64 `json:"thresholds"`
}
