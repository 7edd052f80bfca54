# Critic-in-loop GRPO at laptop scale (critic-grpo-eval.hcl in miniature):
# verify-all.hcl with an 8-vote critic as the reward; candidates whose votes
# disagree (uncertainty 0.25 or more) are routed to a real run, so the same
# 48 training runs reward more candidates over more steps.
#
# Expected figures (assay estimate):
#   training     at most 48 real runs; steps 3 (every candidate routed) to
#                7 (40% routed)
#   real runs    at most 103, as verify-all.hcl

extends = "common/verify-all-critic.hcl" # verify-all.hcl with the critic's roles

name        = "laptop-critic-grpo"
description = "GRPO on an 8-vote critic's verdicts, uncertain ones verified, on 48 real runs, then against Base"

critic "screen" {
  role            = role.critic
  votes           = 8
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
