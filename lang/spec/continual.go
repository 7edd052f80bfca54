package spec

import "github.com/assay-lang/assay/lang/diag"

// CriticContinual is test-time continual learning of an evolution loop's
// screen critic, as the critics paper adapts its critic during evolution:
// every grpo_every rounds a GRPO update on the pairs verified since the
// last one (+1 for a verdict that matches the measured outcome, -1
// otherwise), and every sdft_every rounds an SDFT update on critiques a
// teacher writes knowing the measured outcome. Each update is loaded
// before the next round. scope says whether each task adapts its own
// adapter from the trained checkpoint (the paper's) or one adapter is
// carried across the loop's tasks. enabled = false is the frozen arm of
// the same spec, so a sweep over it is the ablation.
type CriticContinual struct {
	Enabled   Val[bool]    `assay:"enabled" doc:"adapt the critic during the loop (default true); false keeps it frozen, so a sweep over loop.NAME.continual.enabled is the frozen/continual ablation"`
	Scope     Val[string]  `assay:"scope" enum:"task|loop" doc:"task (default, the paper's): each task's updates start from the critic as the loop found it (the trained checkpoint), rounds are counted within the task, and its adapter serves that task's critic calls only; loop: one adapter carried across the loop's tasks, rounds counted across them"`
	Teacher   Ref          `assay:"teacher" doc:"critic-kind role that writes the SDFT target critiques, told the measured outcome of each pair; required when sdft_every > 0"`
	GRPOEvery Val[int]     `assay:"grpo_every" doc:"rounds between T-GRPO updates of the critic (default 2, the paper's; 0: none)"`
	GRPOPairs Val[int]     `assay:"grpo_pairs" doc:"newest pairs verified since the last T-GRPO update that one update trains on (default 6, the paper's)"`
	Group     Val[int]     `assay:"group" doc:"verdicts sampled per pair in a T-GRPO update, the group its advantages are relative to (default 16, the paper's rollouts)"`
	SDFTEvery Val[int]     `assay:"sdft_every" doc:"rounds between SDFT updates (default 1, the paper's; 0: none)"`
	SDFTPairs Val[int]     `assay:"sdft_pairs" doc:"newest pairs verified since the last SDFT update the teacher critiques for one update (default 3, the paper's)"`
	Trainer   Ref          `assay:"trainer" doc:"command plugin (builtin:command with update_command) that runs each update; omit it for a critic whose plugin trains itself (builtin:offline)"`
	GPU       Val[string]  `assay:"gpu" doc:"GPU type of one update; must have a price (with trainer)"`
	GPUs      Val[int]     `assay:"gpus" doc:"GPUs of one update (with trainer)"`
	Hours     Val[float64] `assay:"hours" unit:"hours" doc:"wall-clock hours of one update (with trainer)"`
	LoRARank  Val[int]     `assay:"lora_rank" doc:"rank of the LoRA adapter the trainer's command trains, 1 to 4096 (the paper: 32; unset: the command's own default, left out of its job; with trainer)"`
	Range     diag.Range   `json:"-"`
}
