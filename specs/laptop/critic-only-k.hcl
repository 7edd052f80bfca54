# Critic-only rewards at laptop scale, k = 4, 8, 16, 32 votes (a tied
# majority counts as Lose); critic-only.hcl is k = 1.
#
# Expected figures (assay estimate), per variant:
#   critic calls 8 steps x 16 candidates x k (less the failed builds)
#   real runs    51, as critic-only.hcl

extends = "critic-only.hcl"

name        = "laptop-critic-only-k"
description = "critic-only rewards at k = 4, 8, 16 and 32 votes"

critic "label" {
  tie = "lose"
}

sweep {
  axis "critic.label.votes" {
    values = [4, 8, 16, 32]
  }
}
