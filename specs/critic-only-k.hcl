# Critic-only rewards, swept over the critic's votes k = 4, 8, 16, 32
# (seed 002, appendix J.2); critic-only.hcl is k = 1.
#
# An even k can tie: a tied majority counts as Lose, so a tie earns -1.
#
# Expected figures (assay estimate), per variant:
#   critic calls  40 steps x 256 candidates x k
#   real runs     232, all in the evaluation

extends = "critic-only.hcl"

name        = "critic-only-k"
description = "critic-only rewards at k = 4, 8, 16 and 32 votes"

critic "label" {
  tie = "lose"
}

sweep {
  axis "critic.label.votes" {
    values = [4, 8, 16, 32]
  }
}
