# Verify-all GRPO at laptop scale (critic-grpo-verify-all-eval.hcl in
# miniature): every candidate is built and trained for real by tinylm,
# reward +1 when it improves on the task's baseline and -1 otherwise, until
# 48 real verifications are spent; then the policy and the Base policy are
# evaluated on 2 states of each of 3 holdout tasks.
#
# Expected figures (assay estimate):
#   training     48 runs: 3 steps of 4 states x 4 proposals
#   real runs    7 baselines + 48 + 3 tasks x 2 states x 4 x 2 arms = 103

extends = "common/preamble.hcl" # the laptop specs' shared trainer, LLM, prices and environment

name        = "laptop-verify-all"
description = "GRPO whose every candidate is verified, on 48 real runs, then against Base"

environment "tiny" {
  tasks {
    holdout = 3
  }
}

role "proposer" {
  temperature = 1.0
  tokens {
    in = 500
  }
}

role "implementer" {
  build_failures = { low = 0, expected = 0.05, high = 0.5 }
  llm            = plugin.offline
  concurrency    = 4
  seconds        = 0.001
  tokens {
    in  = 500
    out = 200
  }
  price {
    in  = 0
    out = 0
  }
}

reward "improve" {
  source     = "real"
  value      = "gain > 0 ? 1 : -1"
  infeasible = "-1"
}

loop "policy" {
  preset              = "grpo"
  until_budget        = true
  states              = 4
  proposals_per_state = 4
  reward              = reward.improve
  learning_rate       = 0.5
}

evaluation {
  split   = "holdout"
  states  = 2
  avg_at  = 4
  best_at = 4
  base    = role.proposer
}

budget {
  real_runs = 103
  usd       = 1
}
