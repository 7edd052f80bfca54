# Quickstart: LM2LM in miniature, on the local CPU, in about a minute.
#
#   go run ./cmd/assay run specs/quickstart.hcl
#
# The built-in tinylm trainer really trains a tiny character-level language
# model (validation bits per byte, lower is better); the built-in offline LLM
# plays proposer, research world model (rwm) and builder, so nothing leaves
# the machine and nothing is billed. A proposer policy is trained with DAPO on
# rewards the world model predicts; after steps 4, 12 and 20 the policy's
# top-rated proposals are run for real and join the world model's context,
# and `assay report` shows its predicted-vs-real gap at each of those rounds.
#
# Expected figures (assay estimate):
#   real runs  6 baselines + 16 seed + 3 x 6 calibration + 2 holdout tasks x 2 = 44
#   rwm calls  24 steps / 4 = 6 refreshes x 8 states x 4 proposals = 192
# No baseline is declared, so the baselines phase first measures each task's
# (4 train + 2 holdout) with one real run of the unchanged setup.

name        = "quickstart"
description = "DAPO on world-model-predicted gain with top-rated calibration, on a CPU"
seed        = 1

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { steps = 600 }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { CPU = 0.05 }
}

environment "tiny" {
  family  = "autoregressive"
  trainer = plugin.tinylm
  scale   = 0.2
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "CPU"
    gpus  = 1
    hours = 0.001
  }
  tasks {
    train   = 4
    holdout = 2
  }
}

role "proposer" {
  llm         = plugin.offline
  temperature = 1.0
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 500
    out = 100
  }
  price {
    in  = 0
    out = 0
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
  # The offline builder fails a few builds (more for ideas with more
  # edits); a failed build makes no real run. The estimate's low end
  # assumes up to half fail.
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
  after_steps = [4, 12, 20]
  budget      = [6]
  select      = "top_rated"
}

evaluation {
  split   = "holdout"
  avg_at  = 2
  best_at = 2
}

budget {
  real_runs = 48
  usd       = 1
}

executor {
  kind        = "local"
  concurrency = 2
}
