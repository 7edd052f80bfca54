# Critic-only rewards with code changes (specs/laptop/critic-only.hcl on
# the example task suite): GRPO for 2 steps on a frozen critic's 1-vote
# verdicts of patches of train.go or model.go, each built and committed in
# a git worktree of the imported suite, with no real run in training; then
# the policy and Base are evaluated by real runs as in verify-all.hcl.
#
# Expected figures (assay estimate):
#   critic calls  2 steps x 4 candidates x 1 vote (less the failed builds)
#   real runs     0 baselines + 2 holdout tasks x 1 state x 1 x 2 arms = 4

extends = "common/verify-all-critic.hcl" # verify-all.hcl with the critic's roles

name        = "laptop-code-critic-only"
description = "GRPO on a frozen critic's verdicts of code changes of the example suite alone, then against Base"

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
  steps        = 2
}
