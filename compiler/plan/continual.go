package plan

// Scopes of a continual critic (CriticContinual.Scope).
const (
	// ContinualTask: each task adapts from the critic as the loop found
	// it, its rounds counted within the task (the paper's).
	ContinualTask = "task"
	// ContinualLoop: one adapter carried across the loop's tasks, rounds
	// counted across them.
	ContinualLoop = "loop"
)

// CriticContinual is test-time continual learning of an evolution loop's
// screen critic: before round r (from 0; within each task with Scope
// task, across the loop's tasks with Scope loop), an SDFT update when r
// is a positive multiple of SDFTEvery and a T-GRPO update when it is one
// of GRPOEvery, each on the newest pairs verified since that kind's last
// update (of the task, with Scope task). The updates are those of a
// critic training (CriticUpdate), journaled under Name.
type CriticContinual struct {
	// Name keys the updates' journal records and figures (LOOP.continual).
	Name string `json:"name"`
	// Scope is ContinualTask or ContinualLoop.
	Scope   string `json:"scope"`
	Critic  string `json:"critic"`
	Role    string `json:"role"`
	Teacher string `json:"teacher,omitempty"`
	Labels  string `json:"labels"`
	// GRPOEvery and SDFTEvery are rounds between updates (0: none);
	// GRPOPairs and SDFTPairs the newest new pairs one update takes.
	GRPOEvery int `json:"grpo_every,omitempty"`
	GRPOPairs int `json:"grpo_pairs,omitempty"`
	SDFTEvery int `json:"sdft_every,omitempty"`
	SDFTPairs int `json:"sdft_pairs,omitempty"`
	// SFT and GRPO are the updates (nil: none); GRPO's Group is the
	// verdicts per pair, and each one's Updates counts at most one per
	// update round (none when no new pair, or no kept critique, or every
	// group agreed).
	SFT  *CriticUpdate `json:"sft,omitempty"`
	GRPO *CriticUpdate `json:"grpo,omitempty"`
}
