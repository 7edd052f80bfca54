package plan

import "github.com/assay-lang/assay/lang/diag"

// PhaseCriticTraining trains a critic's role: teacher critiques of
// labelled pairs, SFT on the kept ones, GRPO on the critic's verdicts. It
// runs after the seed records and before the loops, whose critic calls
// then name its last adapter.
const PhaseCriticTraining = "critic_training"

// CriticTraining is a critic_training phase's body: one critic_training
// block as the runtime runs it. The phase's Calls count the teacher's
// critiques and the critic's GRPO verdicts. A continual critic's updates
// are a critic training's too (CriticContinual.Training), without pairs.
type CriticTraining struct {
	// Name keys its journal records and figures.
	Name string `json:"name"`
	// Critic is the critic block whose Role is trained; Teacher the role
	// that writes the SFT critiques ("" without SFT).
	Critic  string `json:"critic"`
	Role    string `json:"role"`
	Teacher string `json:"teacher,omitempty"`
	// Labels is the critic's label space: the teacher's verdicts and the
	// critic's are read in it, and matched against the pair's label of
	// that space (label3 or label5).
	Labels string `json:"labels"`
	// Pairs is the dataset's path as the spec wrote it: absolute, or
	// relative to the directory of the file Source names (the pairs
	// attribute's), so the plan's meaning does not depend on where the
	// spec lies; Split is the pairs it uses ("" every pair).
	Pairs string `json:"pairs"`
	Split string `json:"split"`
	// MinImproving drops, before the split is taken, every pair whose
	// parent has fewer children labelled improve in the file
	// (critic.KeepParents); 0 keeps every pair.
	MinImproving int `json:"min_improving_children,omitempty"`
	// Examples are the split's first pairs the teacher critiques:
	// Samples critiques each, then Revisions told the most frequent wrong
	// verdict, then (Guide) one told the label.
	Examples  int  `json:"examples,omitempty"`
	Samples   int  `json:"samples,omitempty"`
	Revisions int  `json:"revisions,omitempty"`
	Guide     bool `json:"guide,omitempty"`
	// SFT and GRPO are the updates; nil: not made.
	SFT  *CriticUpdate `json:"sft,omitempty"`
	GRPO *CriticUpdate `json:"grpo,omitempty"`
	// MaxPairs bounds the lines the runtime reads of the file.
	MaxPairs int `json:"max_pairs"`
	// Source is where the spec writes pairs.
	Source diag.Range `json:"source"`
}

// CriticUpdate is a critic's SFT or its GRPO: Updates updates of its
// Trainer's update command (each GPUHours and USD, reserved before it
// starts, its adapter served as Adapter, or Adapter-step-N for GRPO), or,
// with no Trainer, of the critic's own plugin.
type CriticUpdate struct {
	Algorithm    string  `json:"algorithm"` // sft | grpo
	Trainer      string  `json:"trainer,omitempty"`
	GPU          string  `json:"gpu,omitempty"`
	GPUs         int     `json:"gpus,omitempty"`
	Hours        float64 `json:"hours,omitempty"`
	GPUHours     float64 `json:"gpu_hours,omitempty"`
	USD          float64 `json:"usd,omitempty"`
	Adapter      string  `json:"adapter"`
	LearningRate float64 `json:"learning_rate"`
	Epochs       int     `json:"epochs,omitempty"`
	KLCoef       float64 `json:"kl_coef,omitempty"`
	WeightDecay  float64 `json:"weight_decay,omitempty"`
	// LoRARank is the adapter's rank the update command is asked for; 0:
	// the command's own default.
	LoRARank int `json:"lora_rank,omitempty"`
	// TimeLimitSeconds is each update's wall-time limit, as a policy
	// update's (PolicyUpdate.TimeLimitSeconds); 0 without a Trainer.
	TimeLimitSeconds float64 `json:"time_limit_seconds,omitempty"`
	// Steps, Batch and Group are GRPO's: steps, pairs a step, verdicts a
	// pair.
	Steps int `json:"steps,omitempty"`
	Batch int `json:"pairs_per_step,omitempty"`
	Group int `json:"group,omitempty"`
	// Balance, for GRPO, has each step draw its pairs equally from these
	// classes of the pool (nil: the pool in order).
	Balance *CriticBalance `json:"balance,omitempty"`
	// Updates is how many updates it makes: SFT one (none when no
	// critique was kept); GRPO one a step whose groups are not all of
	// equal reward.
	Updates Count `json:"updates"`
}

// CriticBalance is a class-balanced GRPO pool (the paper's 5,223 pairs
// per class): a pair's class is its label in Space (3way: label3, 5way:
// label5), and only pairs of Classes are drawn. Step t takes Batch / len
// (Classes) pairs of each class; the remainder goes one pair each to the
// classes in turn, class (t x r + i) mod len(Classes) for i < r, so that
// every len(Classes) steps draw each class equally. Each class's pairs
// are drawn in passes, each pass a permutation seeded by the run's seed,
// the training and the class, so a resumed run draws the same batches.
type CriticBalance struct {
	Space   string   `json:"space"`
	Classes []string `json:"classes"`
}

// PairsPath is the file of ct's pairs: Pairs as written, relative to the
// file that names it (the compiler made a --set path absolute).
func (ct *CriticTraining) PairsPath() string { return specRelative(ct.Pairs, ct.Source) }
