# A tiny local experiment to start from: a few minutes on a laptop CPU.
#
# A small language model is trained by the built-in tinylm trainer; the
# proposer, world model and builder are the built-in offline LLM, so nothing
# leaves the machine and nothing is billed. The shape is LM2LM's in miniature:
# seed records, an RL loop on predicted gain, one calibration round, then an
# evaluation on the holdout task.
#
# Expected figures (assay estimate):
#   real runs  4 seed + 2 calibration + 1 holdout task x 2 = 8
#   rwm calls  4 steps x 2 states x 4 proposals = 32

name        = "small-local"
description = "LM2LM in miniature, on the local CPU with offline models"
seed        = 1

variable "steps" {
  type        = number
  default     = 4
  description = "policy updates"
}

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { layers = 2, width = 64, tokens = 200000 }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  preset = "cloud-2026" # CPU
}

environment "tiny" {
  family   = "autoregressive"
  trainer  = plugin.tinylm
  baseline = 2.0  # val_bpb of the untouched model
  scale    = 0.05 # tau_e: a gain of 0.05 bpb is a reward of 1
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "CPU"
    gpus  = 1
    hours = minutes(2)
  }
  tasks {
    train   = 2
    holdout = 1
  }
}

role "proposer" {
  llm         = plugin.offline
  temperature = 1.0
  seconds     = 0.01
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
  llm     = plugin.offline
  seconds = 0.01
  tokens {
    in  = 2000
    out = 50
  }
  price {
    in  = 0
    out = 0
  }
}

role "builder" {
  llm     = plugin.offline
  seconds = 0.01
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
  source     = "predicted"
  predictor  = role.rwm
  normalize  = "scale"
  clip       = 6
  value      = "clip(predicted_gain / scale, -c, c)"
  infeasible = "-c"
}

loop "policy" {
  preset              = "grpo"
  steps               = var.steps
  states              = 2
  proposals_per_state = 4
  reward              = reward.rwm_gain
}

records {
  seed_runs = 4
}

calibration {
  after_steps = [2]
  budget      = [2]
  select      = "top_rated"
}

evaluation {
  avg_at  = 2
  best_at = 2
}

budget {
  real_runs  = 8
  wall_hours = 1
}

executor {
  kind        = "local"
  concurrency = 2
}
