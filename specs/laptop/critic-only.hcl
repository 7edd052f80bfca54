# Critic-only rewards at laptop scale (critic-only.hcl in miniature): GRPO
# for 8 steps on a frozen critic's k = 1 vote verdicts, with no real run in
# training; then the policy and Base are evaluated as in verify-all.hcl.
# critic-only-k.hcl sweeps k over 4, 8, 16 and 32.
#
# Expected figures (assay estimate):
#   critic calls 8 steps x 16 candidates x k (less the failed builds)
#   real runs    3 holdout baselines + 3 tasks x 2 states x 4 x 2 arms = 51

extends = "common/verify-all-critic.hcl" # verify-all.hcl with the critic's roles

name        = "laptop-critic-only"
description = "GRPO on a frozen critic's k-vote verdicts alone, then against Base"

critic "label" {
  role      = role.critic
  votes     = 1
  labels    = "3way"
  aggregate = "majority"
}

reward "improve" {
  source    = "critic"
  predictor = critic.label
  value     = "label_score > 0 ? 1 : -1"
}

loop "policy" {
  until_budget = false
  steps        = 8
}
