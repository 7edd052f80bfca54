# Critic-in-loop GRPO with code changes (specs/laptop/critic-grpo.hcl on
# the example task suite): verify-all.hcl here with a 4-vote critic as the
# reward; candidates, each a patch of train.go or model.go built and
# committed in a git worktree of the imported suite, whose votes disagree
# (uncertainty 0.25 or more) are routed to a real run, so the same 8
# training runs reward more candidates over more steps.
#
# Expected figures (assay estimate):
#   training   at most 8 real runs; 5 steps expected (40% routed), 2
#              (every candidate routed) to 100 (5% routed)
#   real runs  11.4 (5.6 - 12), at most 12 as verify-all.hcl

extends = "common/verify-all-critic.hcl" # verify-all.hcl with the critic's roles

name        = "laptop-code-critic-grpo"
description = "GRPO on code changes of the example suite, rewarded by a 4-vote critic whose uncertain verdicts are verified, then against Base"

critic "screen" {
  role            = role.critic
  votes           = 4
  labels          = "3way"
  aggregate       = "majority"
  tie             = "route"
  threshold       = 0.25
  expected_routed = { low = 0.05, expected = 0.4, high = 1 }
}

reward "improve" {
  source    = "critic"
  predictor = critic.screen
  value     = "label_score > 0 ? 1 : -1"
}

loop "policy" {
  preset = "critic-grpo"
  screen = critic.screen
}
