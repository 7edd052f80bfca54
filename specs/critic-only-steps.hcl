# Critic-only rewards, swept over the policy's training steps (seed 002,
# appendix J.2, figure 5 left): GRPO whose every reward is the frozen
# critic's majority verdict, for 20, 40, 80, 120 and 160 steps, each
# policy then evaluated against Base. The sweep's 0-step point is Base
# itself: the untrained policy, which every variant's evaluation measures
# beside the trained one (its base_avg), so no variant trains 0 steps.
#
# The paper fixes k = 16 votes for its other critic-only sweep and calls
# 16 its practical choice; this sweep uses it too (critic-only-k.hcl
# sweeps k at 40 steps). An even k can tie: a tied majority is Lose (-1).
#
# Expected figures (assay estimate), per variant of S steps:
#   candidates    S x 256, each implemented, summarised and judged
#   critic calls  S x 256 x 16 (655,360 at S = 160), no real run in training
#   updates       S, S x 8 x 0.25 GPU-hours (320 at S = 160)
#   real runs     232, all in the evaluation

extends = "critic-only.hcl"

name        = "critic-only-steps"
description = "critic-only rewards (k = 16) for 20 to 160 GRPO steps, each policy against Base"

variable "votes" {
  type        = number
  default     = 16
  description = "critic votes k per candidate (16, the paper's practical choice)"
}

critic "label" {
  votes = var.votes
  tie   = "lose"
}

sweep {
  axis "loop.policy.steps" {
    values = [20, 40, 80, 120, 160]
  }
}
