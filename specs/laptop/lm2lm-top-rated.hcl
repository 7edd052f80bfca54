# LM2LM at laptop scale: the calibration ablation's top-rated arm.
#
#   go run ./internal/reproduce   (runs this and the other laptop specs)
#
# The shape of lm2lm-eval.hcl in miniature, on the built-in tinylm trainer
# (real training of a tiny character-level language model; validation bits
# per byte, lower is better) and the built-in offline LLM as proposer,
# world model and builder. DAPO on world-model-predicted gain for 24 steps;
# after steps 6, 12 and 18 the policy's 6 top-rated proposals are run for
# real and join the world model's context. Then 2 states of each of the 3
# holdout tasks are evaluated by real runs: Avg@4 and Best@4 of gain over
# tau_e for the trained policy, the Base policy (the proposer untrained) and
# Base-ICL (untrained, 16 records in its prompt), with the world model's
# held-out figures.
#
# Expected figures (assay estimate):
#   real runs  7 baselines + 16 seed + 3 x 6 calibration
#              + 3 tasks x 2 states x 4 x 3 arms = 113

extends = "common/preamble.hcl" # the laptop specs' shared trainer, LLM, prices and environment

name        = "laptop-lm2lm-top-rated"
description = "LM2LM in miniature with top-rated calibration, evaluated against Base and Base-ICL"

environment "tiny" {
  tasks {
    holdout = 3
  }
}

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

role "builder" {
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
  steps               = 24
  rollout_every       = 4
  states              = 8
  proposals_per_state = 4
  learning_rate       = 0.5
  reward              = reward.rwm_gain
}

records {
  seed_runs = 16
  select    = "random"
}

calibration {
  loop        = loop.policy
  after_steps = [6, 12, 18]
  budget      = [6]
  select      = "top_rated"
}

evaluation {
  split       = "holdout"
  states      = 2
  avg_at      = 4
  best_at     = 4
  base        = role.proposer
  icl         = role.proposer
  icl_records = 16
  predictor   = role.rwm
}

budget {
  real_runs = 113
  usd       = 1
}
