# LM2LM with code changes (specs/laptop/lm2lm-top-rated.hcl on the example
# task suite): DAPO on world-model-predicted gain for 4 steps, every
# candidate a patch of train.go or model.go the offline builder writes,
# built with go vet and committed in a git worktree of the imported suite.
# 2 seed records are run for real first; after step 2 the policy's 2
# top-rated proposals are run for real and join the world model's
# context. Then the suite's 2 held-out tasks are evaluated by real runs
# for the trained policy, Base (the proposer untrained) and Base-ICL
# (untrained, 2 records in its prompt), with the world model's held-out
# figures.
#
# Expected figures (assay estimate):
#   real runs  0 baselines (suite.json anchors them) + 2 seed + 2
#              calibration + 2 tasks x 1 state x 1 x 3 arms = 10

extends = "common/preamble.hcl" # the example suite in source mode

name        = "laptop-code-lm2lm"
description = "LM2LM in miniature on code changes of the example suite, with top-rated calibration, evaluated against Base and Base-ICL"

role "proposer" {
  temperature = 1.0
  tokens {
    in = 4000
  }
}

role "rwm" {
  llm         = plugin.offline
  temperature = 0.0
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 4000
    out = 50
  }
  price {
    in  = 0
    out = 0
  }
}

# The builder is shown train.go and model.go whole.
role "builder" {
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

reward "rwm_gain" {
  source         = "predicted"
  predictor      = role.rwm
  normalize      = "scale"
  clip           = 6
  value          = "clip(predicted_gain / scale, -c, c) + diversity_bonus"
  repeat_penalty = 0.5
  infeasible     = "-c"
  diversity {
    by     = "mechanism"
    weight = 0.2
  }
}

loop "policy" {
  preset              = "dapo"
  steps               = 4
  rollout_every       = 2
  states              = 2
  proposals_per_state = 2
  learning_rate       = 0.5
  reward              = reward.rwm_gain
}

records {
  seed_runs = 2
  select    = "random"
}

calibration {
  loop        = loop.policy
  after_steps = [2]
  budget      = [2]
  select      = "top_rated"
}

evaluation {
  split       = "holdout"
  states      = 1
  avg_at      = 1
  best_at     = 1
  base        = role.proposer
  icl         = role.proposer
  icl_records = 2
  predictor   = role.rwm
}

budget {
  real_runs = 10
  usd       = 1
}
