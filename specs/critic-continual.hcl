# The critics paper's pipeline with test-time continual learning: the
# critic of critic-train.hcl (teacher critiques, SFT, GRPO) screens
# OpenEvolve and keeps adapting during it, as the paper's continual arm:
# an SDFT update every round on the 3 newest verified pairs, critiqued by
# the teacher told each pair's measured outcome, and a T-GRPO update every
# 2 rounds on the 6 newest, 16 verdicts a pair (+1 for a verdict that is
# the measured outcome, -1 otherwise), each a LoRA update by the user's
# training command, loaded before the next round. The frozen arm is
# critic-train.hcl, which this spec extends; laptop/critic-continual.hcl
# sweeps enabled over [false, true] to run both arms of one spec.
#
# SDFT tells the teacher a pair's measured 3-way outcome, so the critic
# labels in 3way here (the compiler refuses SDFT for a 5-way critic).
#
# You supply train_critic.py, which is not in this repository: the
# update command of every critic update (critic-sft, critic-grpo): it
# reads the batch file, trains a LoRA adapter of the critic (rank 32, the
# paper's, as ASSAY_LORA_RANK) from the previous adapter and writes it
# into adapter_dir (docs/critic-training.md, "Through your training
# command").
#
# Expected figures (assay estimate), continual arm, beyond critic-train.hcl:
#   update rounds  tasks x 10 rounds, less the first
#   updates        SDFT up to one a round, T-GRPO up to one every 2 rounds,
#                  each 8 H100 x 0.05 hours
#   teacher calls  up to 3 a round; critic calls up to 6 x 16 every 2 rounds

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
