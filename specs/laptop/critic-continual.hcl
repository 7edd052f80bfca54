# Test-time continual learning of the critic at laptop scale, frozen
# against continual (the critics paper's ablation): critic-evolve.hcl with
# a 3-way critic, whose continual arm makes an SDFT update every round on
# the 3 newest verified pairs (a teacher critiques each, told the measured
# outcome) and a T-GRPO update every 2 rounds on the 6 newest, 16
# verdicts a pair, +1 when a verdict is the measured outcome. The offline
# critic learns a bias per mechanism direction, so the continual arm's
# verdicts move (critic_continual.txtar).
#
# Expected figures (assay estimate), continual arm:
#   update rounds  4 tasks x 6 rounds, less the first: 23
#   updates        SDFT 0 to 23, T-GRPO 0 to 11 (none without new pairs,
#                  a kept critique, or a group that disagrees)
#   teacher calls  0 to 23 x 3 = 69
#   critic calls   the evolution's votes, plus 0 to 11 x 6 x 16 = 1,056
# The frozen arm is critic-evolve.hcl with the 3-way critic.

extends = "critic-evolve.hcl"

name        = "laptop-critic-continual"
description = "critic-screened evolution with a frozen and a continually trained critic"

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
