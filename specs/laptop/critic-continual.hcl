# The critics paper's whole pipeline at laptop scale (critic-continual.hcl
# in miniature), frozen against continual: critic-train.hcl (teacher
# critiques of labelled pairs, SFT and GRPO of the offline critic, the
# static bench on held-out pairs), then critic-screened evolution whose
# continual arm keeps adapting the critic (the paper's ablation), each
# task from the trained critic (continual.scope = "task"): an SDFT update
# every round on the 3 newest verified pairs (a teacher critiques each,
# told the measured outcome) and a T-GRPO update every 2 rounds on the 6
# newest, 16 verdicts a pair, +1 when a verdict is the measured outcome.
# The offline critic learns a bias per mechanism and a weight per feature
# of the change, so the continual arm's verdicts move
# (critic_continual.txtar).
#
# Expected figures (assay estimate), per arm, beyond critic-train.hcl:
#   update rounds  4 tasks x 6 rounds, less each task's first: 20
#   updates        continual arm: SDFT 0 to 20, T-GRPO 0 to 4 x 2 = 8
#                  (none without new pairs, a kept critique, or a group
#                  that disagrees); frozen arm: none
#   teacher calls  continual arm: 0 to 20 x 3 = 60 more
#   critic calls   continual arm: 0 to 8 x 6 x 16 = 768 more
# The frozen arm is critic-train.hcl.

extends = "critic-train.hcl"

name        = "laptop-critic-continual"
description = "critic training and bench, then critic-screened evolution with a frozen and a continually trained critic"

loop "evolve" {
  continual {
    teacher    = role.teacher
    grpo_every = 2
    grpo_pairs = 6
    group      = 16
    sdft_every = 1
    sdft_pairs = 3
  }
}

sweep {
  axis "loop.evolve.continual.enabled" {
    values = [false, true]
  }
}
