package spec

import "github.com/assay-lang/assay/lang/diag"

// CriticTraining trains a critic's role before the spec's loops, as the
// critics paper does: a teacher role critiques labelled parent/child pairs
// (critiques whose verdict disagrees with the execution label are revised,
// then guided), the critic is fine-tuned on the kept critiques (SFT), then
// trained with GRPO on its own verdicts (+1 correct, -1 otherwise). The
// adapter it ends with serves the critic role in every later phase.
type CriticTraining struct {
	Name      string      `json:"-"`
	NameRange diag.Range  `json:"-"`
	Critic    Ref         `assay:"critic" doc:"critic block whose role is trained; its role serves the trained adapter in the phases after this one"`
	Teacher   Ref         `assay:"teacher" doc:"critic-kind role that writes the critiques the critic is fine-tuned on (the paper's Gemini-3.1-Pro)"`
	Pairs     Val[string] `assay:"pairs" doc:"labelled pairs, one JSON object a line in the schema of assay export pairs (docs/pairs.md), relative to this file"`
	Split     Val[string] `assay:"split" enum:"train|holdout" doc:"the pairs used: those whose split is this (default: every pair of the file)"`
	// MinImproving is the critics paper's filter of its pool (appendix
	// C.2), applied to the whole file before the split is taken.
	MinImproving Val[int]    `assay:"min_improving_children" doc:"pairs whose parent has fewer children labelled improve in the file (label3, children of the same parent in the same run) are left out before the split, the examples and the GRPO pool are taken, as the critics paper drops parents with fewer than three improving children (3); default 0: every pair"`
	Examples     Val[int]    `assay:"examples" doc:"pairs the teacher critiques for SFT: the split's first N; the file must hold at least N (the paper: about 11,000)"`
	Samples      Val[int]    `assay:"samples" doc:"critiques the teacher writes per pair without the label; one whose verdict matches the label is kept (Sampled stratum; default 8)"`
	Revisions    Val[int]    `assay:"revisions" doc:"critiques written again, told the most frequent wrong verdict is wrong, when no sample matched (Revised stratum; default 8, 0: none)"`
	Guide        Val[bool]   `assay:"guide" doc:"when no revision matched either, the teacher is told the label and writes one critique consistent with it (Guided stratum; default true; false: the pair is left out)"`
	SFT          *CriticSFT  `assay:"sft,block" doc:"supervised fine-tuning of the critic on the kept critiques: one update"`
	GRPO         *CriticGRPO `assay:"grpo,block" doc:"GRPO of the critic after its SFT: reward +1 for a verdict that matches the label, -1 otherwise"`
	Range        diag.Range  `json:"-"`
}

// CriticSFT is a critic's supervised fine-tuning: one update on the
// teacher's kept critiques, run by the user's training command (or by the
// critic's own plugin when it trains itself).
type CriticSFT struct {
	Trainer      Ref          `assay:"trainer" doc:"command plugin (builtin:command with update_command) that runs the update; omit it for a critic whose plugin trains itself (builtin:offline)"`
	GPU          Val[string]  `assay:"gpu" doc:"GPU type of the update; must have a price (with trainer)"`
	GPUs         Val[int]     `assay:"gpus" doc:"GPUs of the update (with trainer)"`
	Hours        Val[float64] `assay:"hours" unit:"hours" doc:"wall-clock hours of the update, for its cost and the wall-time estimate (with trainer)"`
	Adapter      Val[string]  `assay:"adapter" doc:"name the critic's endpoint serves the adapter under (default: the block's name and -sft)"`
	LearningRate Val[float64] `assay:"learning_rate" doc:"learning rate (default 1e-5, the paper's)"`
	Epochs       Val[int]     `assay:"epochs" doc:"passes over the kept critiques (default 3, the paper's)"`
	LoRARank     Val[int]     `assay:"lora_rank" doc:"rank of the LoRA adapter the trainer's command trains, 1 to 4096 (the paper: 32; unset: the command's own default, left out of its job; with trainer)"`
	Range        diag.Range   `json:"-"`
}

// CriticGRPO is a critic's GRPO: each step samples group verdicts of the
// critic on each of its pairs, rewards each +1 when its 3-way verdict
// matches the pair's label and -1 otherwise, and makes one update.
type CriticGRPO struct {
	Trainer      Ref           `assay:"trainer" doc:"command plugin (builtin:command with update_command) that runs each update; omit it for a critic whose plugin trains itself (builtin:offline)"`
	GPU          Val[string]   `assay:"gpu" doc:"GPU type of one update; must have a price (with trainer)"`
	GPUs         Val[int]      `assay:"gpus" doc:"GPUs of one update (with trainer)"`
	Hours        Val[float64]  `assay:"hours" unit:"hours" doc:"wall-clock hours of one update (with trainer)"`
	Adapter      Val[string]   `assay:"adapter" doc:"name prefix the critic's endpoint serves the adapters under: step N as PREFIX-step-N (default: the block's name and -grpo)"`
	Steps        Val[int]      `assay:"steps" doc:"GRPO steps, one update each (the paper: 300)"`
	Batch        Val[int]      `assay:"pairs_per_step" doc:"pairs per step, from the split's pairs after the SFT's examples (the GRPO pool): in order, from the first again when they run out, or drawn by class with balance (the paper: 256)"`
	Balance      Val[[]string] `assay:"balance" doc:"classes each step draws equally from the GRPO pool, seeded: 3-way labels (the pair's label3, the class the reward judges; the paper: improve, tie and lose, 5,223 pairs each) or, for a 5-way critic, 5-way labels (label5); pairs of another class are not drawn (default: the pool in order)"`
	Group        Val[int]      `assay:"group" doc:"verdicts sampled per pair, the group its advantages are relative to (default 8, the paper's)"`
	KLCoef       Val[float64]  `assay:"kl_coef" doc:"beta of the KL penalty toward the SFT critic (default 0.01, the paper's)"`
	LearningRate Val[float64]  `assay:"learning_rate" doc:"learning rate (default 1e-6, the paper's)"`
	WeightDecay  Val[float64]  `assay:"weight_decay" doc:"the optimiser's decoupled weight decay (default 0.1, the paper's)"`
	LoRARank     Val[int]      `assay:"lora_rank" doc:"rank of the LoRA adapter the trainer's command trains, 1 to 4096 (the paper: 32; unset: the command's own default, left out of its job; with trainer)"`
	Range        diag.Range    `json:"-"`
}
