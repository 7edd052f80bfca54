# Critic-in-loop GRPO at laptop scale (critic-grpo-eval.hcl in miniature):
# verify-all.hcl with an 8-vote critic as the reward; candidates whose votes
# disagree (uncertainty 0.25 or more) are routed to a real run, so the same
# 48 training runs reward more candidates over more steps.
#
# Expected figures (assay estimate):
#   training     at most 48 real runs; steps 3 (every candidate routed) to
#                7 (40% routed)
#   real runs    at most 103, as verify-all.hcl

extends = "verify-all.hcl"

name        = "laptop-critic-grpo"
description = "GRPO on an 8-vote critic's verdicts, uncertain ones verified, on 48 real runs, then against Base"

role "summarizer" {
  llm         = plugin.offline
  temperature = 0.4
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 300
    out = 80
  }
  price {
    in  = 0
    out = 0
  }
}

role "critic" {
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 20
  }
  price {
    in  = 0
    out = 0
  }
}

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
