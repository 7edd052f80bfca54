# The critics paper's whole pipeline (seed 002) with test-time continual
# learning: labelled pairs -> teacher critiques -> SFT -> GRPO -> static
# bench -> OpenEvolve screened by a critic that keeps adapting. The critic
# of critic-train.hcl (teacher critiques, SFT, GRPO, benched on held-out
# pairs) screens OpenEvolve and keeps adapting during it, as the paper's
# continual arm: each task adapts its own adapter from the trained critic
# (continual.scope = "task", the default), with an SDFT update before
# every round but its first, on the 3 newest verified pairs, and a T-GRPO
# update every 2 rounds on the 6 newest, 16 verdicts a pair (+1 for a
# verdict that is the measured outcome, -1 otherwise), each a LoRA update
# by the training command, loaded before the next round. SDFT's batch
# carries the critic's own critique of each pair and its prompt told the
# measured outcome, so the command distils the outcome-conditioned
# trained critic along the critic's own tokens (a token-level reverse
# KL); the teacher role writes the critiques SDFT keeps, as the
# fallback target. The frozen arm is critic-train.hcl, which this spec
# extends; laptop/critic-continual.hcl sweeps enabled over [false, true]
# to run both arms of one spec.
#
# SDFT tells the teacher a pair's measured 3-way outcome, so the critic
# labels in 3way here (the compiler refuses SDFT for a 5-way critic), and
# the bench scores its 3-way verdicts (its 5-Ladder is left out).
#
# You supply what critic-train.hcl lists (data/critic-pairs.jsonl,
# data/critic-bench.jsonl, the endpoints, the path of
# examples/trainer/train_critic.py in update_command): the update command
# of every critic update (critic-sft, critic-grpo) reads the batch file,
# trains a LoRA adapter of the critic (rank 32, the paper's, as
# ASSAY_LORA_RANK) from the previous adapter and writes it into
# adapter_dir (docs/critic-training.md, "Through your training command").
#
# Expected figures (assay estimate):
#   teacher calls  140,252 (88,000 to 187,783): critic-train.hcl's 139,469
#                  and up to 3 a round for SDFT: 29 tasks x 9 rounds (all
#                  but each task's first) = 261 rounds x 3 = 783
#   critic calls   873,039 (861,120 to 873,039): GRPO 614,400, the bench's
#                  1,500 x 16 = 24,000, the evolution's 222,720, T-GRPO
#                  up to 29 x 4 = 116 updates x 6 x 16 = 11,136, and the
#                  critic's own critiques of the SDFT pairs, up to 783
#   updates        SFT 1, GRPO 300, then up to 261 SDFT and 116 T-GRPO,
#                  each 8 H100 x 0.05 hours (none without new pairs, a
#                  kept critique, or a group that disagrees)
#   GPU-hours      1,451.3 (652.5 to 1,451.3): the evolution's 652.5, the
#                  training's 648 and the continual updates' 150.8
#   dollars        $13,538 ($6,842 to $14,555)

extends = "critic-train.hcl"

name        = "critic-continual"
description = "critic training, then OpenEvolve screened by a frozen and a continually trained critic"

critic "screen" {
  labels = "3way"
}

loop "evolve" {
  continual {
    enabled    = true
    teacher    = role.teacher
    grpo_every = 2
    grpo_pairs = 6
    group      = 16
    sdft_every = 1
    sdft_pairs = 3
    trainer    = plugin.critic_trainer
    gpu        = "H100"
    gpus       = 8
    hours      = 0.05
    lora_rank  = 32
  }
}
