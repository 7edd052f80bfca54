# The shared body of small-local.hcl and quickstart-slurm.hcl: LM2LM in
# miniature (seed records, an RL loop on predicted gain, one calibration
# round, then an evaluation on the holdout task) with the built-in offline
# LLM as proposer, world model and builder. It names no trainer and no
# executor kind: each spec that extends it adds its own (the tinylm trainer
# on the local CPU, a training command on Slurm). Not a spec to run alone.

seed = 1

variable "steps" {
  type        = number
  default     = 4
  description = "policy updates"
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  preset = "cloud-2026"
}

environment "tiny" {
  family = "autoregressive"
  scale  = 0.05 # tau_e: a gain of 0.05 bpb is a reward of 1
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
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
  concurrency = 2
}
