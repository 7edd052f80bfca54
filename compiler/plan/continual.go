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

// Continual update kinds (ContinualUpdate.Kind).
const (
	UpdateSDFT = "sdft"
	UpdateGRPO = "grpo"
)

// CriticContinual is test-time continual learning of an evolution loop's
// screen critic: the updates Updates lists, each on the newest pairs the
// loop verified since that kind's last update (of the task, with Scope
// task), made as a critic training's (Training, which has no pairs file).
type CriticContinual struct {
	// Scope is ContinualTask (each task starts again from the critic as
	// the loop found it, on its own pairs) or ContinualLoop (one adapter
	// across the loop's tasks).
	Scope string `json:"scope"`
	// GRPOPairs and SDFTPairs are the newest new pairs one update of
	// each kind takes.
	GRPOPairs int `json:"grpo_pairs,omitempty"`
	SDFTPairs int `json:"sdft_pairs,omitempty"`
	// Training is the updates' critic, role, teacher, labels and the SFT
	// and T-GRPO updates (nil: none of that kind); its Name keys their
	// journal records and figures (LOOP.continual). GRPO's Batch is
	// GRPOPairs, the most one update takes, and Group the verdicts per
	// pair; each one's Updates counts the entries of Updates of its kind
	// at most (none made when no new pair, no kept critique, or every
	// group agreed).
	Training *CriticTraining `json:"training"`
	// Updates are the updates the loop makes, in the order it makes
	// them: the compiler's schedule, which the runtime follows.
	Updates []ContinualUpdate `json:"updates"`
}

// ContinualUpdate is one update of a continual critic: of kind Kind
// (UpdateSDFT first, then UpdateGRPO, where both fall before one round),
// before round Round (from 0) of task Task of the loop's split. Key is
// the round counted across the loop's tasks in their order (task index x
// rounds + Round): it keys the update's journal records, and names its
// adapter.
type ContinualUpdate struct {
	Task  TaskRef `json:"task"`
	Round int     `json:"round"`
	Key   int     `json:"key"`
	Kind  string  `json:"kind"`
}

// MaxContinualUpdates bounds the updates one continual critic's schedule
// lists.
const MaxContinualUpdates = 10_000
