# The critics paper's whole pipeline (seed 002) with test-time continual
# learning: labelled pairs -> teacher critiques -> SFT -> GRPO -> static
# bench -> OpenEvolve screened by a critic that keeps adapting. The critic
# of critic-train.hcl (teacher critiques, SFT, GRPO, benched on held-out
# pairs) screens OpenEvolve and keeps adapting during it, as the paper's
# continual arm: an SDFT update every round on the 3 newest verified
# pairs, critiqued by the teacher told each pair's measured outcome, and a
# T-GRPO update every 2 rounds on the 6 newest, 16 verdicts a pair (+1 for
# a verdict that is the measured outcome, -1 otherwise), each a LoRA
# update by the user's training command, loaded before the next round.
# The frozen arm is critic-train.hcl, which this spec extends;
# laptop/critic-continual.hcl sweeps enabled over [false, true] to run
# both arms of one spec.
#
# SDFT tells the teacher a pair's measured 3-way outcome, so the critic
# labels in 3way here (the compiler refuses SDFT for a 5-way critic), and
# the bench scores its 3-way verdicts (its 5-Ladder is left out).
#
# You supply what critic-train.hcl lists (data/critic-pairs.jsonl,
# data/critic-bench.jsonl, the endpoints) and train_critic.py, which is
# not in this repository: the update command of every critic update
# (critic-sft, critic-grpo): it reads the batch file, trains a LoRA
# adapter of the critic (rank 32, the paper's, as ASSAY_LORA_RANK) from
# the previous adapter and writes it into adapter_dir
# (docs/critic-training.md, "Through your training command").
#
# Expected figures (assay estimate):
#   teacher calls  140,336 (88,000 to 187,867): critic-train.hcl's 139,469
#                  and up to 3 a round for SDFT: 29 tasks x 10 rounds,
#                  less the first, = 289 rounds x 3 = 867
#   critic calls   874,944 (861,120 to 874,944): GRPO 614,400, the bench's
#                  1,500 x 16 = 24,000, the evolution's 222,720, and T-GRPO
#                  up to 144 x 6 x 16 = 13,824
#   updates        SFT 1, GRPO 300, then up to 289 SDFT and 144 T-GRPO,
#                  each 8 H100 x 0.05 hours (none without new pairs, a
#                  kept critique, or a group that disagrees)
#   GPU-hours      1,473.7 (652.5 to 1,473.7): the evolution's 652.5, the
#                  training's 648 and the continual updates' 173.2
#   dollars        $13,697 ($6,842 to $14,714)

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
