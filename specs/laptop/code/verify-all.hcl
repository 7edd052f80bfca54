# Verify-all GRPO with code changes (specs/laptop/verify-all.hcl on the
# example task suite, common/preamble.hcl): every candidate is a patch of
# train.go or model.go the offline LLM writes, built with go vet in a git
# worktree of the imported suite, committed under refs/assay/<run>/ and
# trained for real by the task's evaluation command; reward +1 when it
# improves on the task's baseline (from suite.json) and -1 otherwise,
# until 8 training runs are spent. Then the policy and Base are evaluated
# on the suite's two held-out tasks. refs/assay/<run>/best/<task> is each
# task's best program; `assay run` prints where to check it out.
#
# Expected figures (assay estimate):
#   training   8 runs: 2 steps of 2 states x 2 proposals
#   real runs  0 baselines (suite.json anchors them) + 8 + 2 holdout
#              tasks x 1 state x 1 x 2 arms = 12

extends = "common/preamble.hcl" # the example suite in source mode

name        = "laptop-code-verify-all"
description = "GRPO on code changes of the example suite, every candidate verified, then against Base"

role "proposer" {
  temperature = 1.0
}

# The builder is shown train.go and model.go whole: its prompts are some
# 2,400 tokens, where a knob edit's are 500.
role "implementer" {
  build_failures = { low = 0, expected = 0.05, high = 0.5 }
  llm            = plugin.offline
  concurrency    = 4
  seconds        = 0.001
  tokens {
    in  = { low = 1000, expected = 2500, high = 4000 }
    out = { low = 50, expected = 200, high = 400 }
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
  states              = 2
  proposals_per_state = 2
  reward              = reward.improve
  learning_rate       = 0.5
}

evaluation {
  split   = "holdout"
  states  = 1
  avg_at  = 1
  best_at = 1
  base    = role.proposer
}

budget {
  real_runs = 12
  usd       = 1
}
