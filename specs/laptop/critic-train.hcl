# Critic training at laptop scale (critic-train.hcl in miniature), then
# critic-evolve.hcl with the trained critic. Its pairs are the two-stage
# collection of critic-pairs.hcl (data/critic-pairs.jsonl, exported with
# --holdout-tasks train-04), less the parents with fewer than 3 improving
# children (min_improving_children). A teacher critiques the first 160
# train pairs; the critiques whose verdict matches the measured label are
# kept, the rest revised, then guided; the offline critic is fine-tuned on
# them (SFT), trained by GRPO for 4 steps on the train pairs after them,
# drawn equally from the improve and lose classes, benched on the first 96
# held-out pairs of train-04 (the static critic evaluation, at k 1 and 8),
# and then screens the evolution loop. The offline critic learns a bias
# per mechanism and a weight per feature of the change (the setting a
# child makes, the way it moves a knob), which carry across tasks.
#
# Expected figures (assay estimate):
#   teacher calls  160 pairs x 4 samples = 640, at most 160 x (4 + 4 + 1)
#                  = 1,440
#   critic calls   GRPO 4 steps x 8 pairs x 4 verdicts = 128, the bench's
#                  96 pairs x 8 votes = 768, then the evolution's 2,304
#                  votes as critic-evolve.hcl
#   updates        SFT 1, GRPO 0 to 4 (a step whose groups all agree makes none)

extends = "critic-evolve.hcl"

name        = "laptop-critic-train"
description = "teacher critiques, SFT and GRPO of the offline critic, then critic-screened evolution"

role "teacher" {
  kind        = "critic"
  llm         = plugin.offline
  temperature = 1
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 40
  }
  price {
    in  = 0
    out = 0
  }
}

critic "screen" {
  labels = "3way"
}

critic_training "critic" {
  critic  = critic.screen
  teacher = role.teacher
  pairs   = "data/critic-pairs.jsonl"
  split   = "train"
  # The paper's filter: a parent with fewer than 3 improving children
  # makes no pair (critic-pairs.hcl collects 20 children a parent).
  min_improving_children = 3
  examples               = 160
  samples                = 4
  revisions              = 4
  sft {}
  grpo {
    steps          = 4
    pairs_per_step = 8
    group          = 4
    # critic-train.hcl's class-balanced pool: 4 improve and 4 lose pairs a
    # step. These pairs have no tie (an exactly equal metric), and the
    # pool's 12 pairs hold 1 improve, so it is drawn 4 times a step.
    balance = ["improve", "lose"]
  }
}

# The trained critic, benched before it screens: Improve accuracy, Dir-3,
# F1, 5-Ladder and AUROC at k 1 and 8 (assay report).
critic_eval "bench" {
  data                   = "data/critic-pairs.jsonl"
  split                  = "holdout"
  min_improving_children = 3
  limit                  = 96 # of the held-out pairs of train-04
  k                      = [1, 8]
}
