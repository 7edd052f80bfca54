# Critic-only rewards at laptop scale over training steps (critic-only-
# steps.hcl in miniature): GRPO on a frozen critic's k = 16 vote verdicts
# (a tied majority is Lose) for 2, 4, 8 and 16 steps, with no real run in
# training; each policy and Base are then evaluated as in verify-all.hcl.
# The 0-step point is Base, which every variant evaluates (Base Avg@4).
#
# Expected figures (assay estimate), per variant of S steps:
#   critic calls S x 16 candidates x 16 (less the failed builds)
#   real runs    51, as critic-only.hcl

extends = "critic-only.hcl"

name        = "laptop-critic-only-steps"
description = "critic-only rewards (k = 16) for 2 to 16 GRPO steps, each policy against Base"

critic "label" {
  votes = 16
  tie   = "lose"
}

sweep {
  axis "loop.policy.steps" {
    values = [2, 4, 8, 16]
  }
}
