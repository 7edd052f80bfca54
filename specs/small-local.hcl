# A tiny local experiment to start from: a few minutes on a laptop CPU.
#
#   go run ./cmd/assay run specs/small-local.hcl
#
# A small language model is trained by the built-in tinylm trainer; the
# proposer, world model and builder are the built-in offline LLM, so nothing
# leaves the machine and nothing is billed. The shape is LM2LM's in miniature:
# seed records, an RL loop on predicted gain, one calibration round, then an
# evaluation on the holdout task. The proposals edit tinylm's knobs (width,
# depth, learning rate, ...); the plugin's config sets only how long a run
# trains and on which corpus.
#
# Expected figures (assay estimate):
#   real runs  3 baselines + 4 seed + 2 calibration + 1 holdout task x 2 = 11
#   rwm calls  4 steps x 2 states x 4 proposals = 32
# No baseline is declared, so one real run of the unedited setup measures
# each task's (2 train + 1 holdout): the baselines phase of the estimate.

name        = "small-local"
description = "LM2LM in miniature, on the local CPU with offline models"
seed        = 1

variable "steps" {
  type        = number
  default     = 4
  description = "policy updates"
}

variable "train_steps" {
  type        = number
  default     = 2000
  description = "tinylm optimiser steps per real run"
}

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { steps = var.train_steps, corpus = "grammar" }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  preset = "cloud-2026" # CPU
}

environment "tiny" {
  family  = "autoregressive"
  trainer = plugin.tinylm
  scale   = 0.05 # tau_e: a gain of 0.05 bpb is a reward of 1
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
  # The offline builder fails a few builds (more for ideas with more
  # edits); a failed build makes no real run. The estimate's low end
  # assumes up to half fail.
  build_failures = { low = 0, expected = 0.05, high = 0.5 }
  llm            = plugin.offline
  seconds        = 0.01
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
  learning_rate       = 0.5
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
  real_runs  = 12
  wall_hours = 1
}

executor {
  kind        = "local"
  concurrency = 2
}
