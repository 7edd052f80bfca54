# A quicker copy of specs/quickstart-slurm.hcl for TestSlurmQuickstartArrays:
# the same phases (4 seed records, an RL loop on predicted gain, one
# calibration round of 2, Avg@2/Best@2 on the holdout task: 8 real runs) with
# a shorter training command and knobs the offline proposer can edit. The
# test runs it from the repository root, so repo = "." is this checkout.

name        = "quickstart-slurm-test"
description = "LM2LM in miniature: a real training command per run, submitted to Slurm"
seed        = 1

variable "steps" {
  type        = number
  default     = 4
  description = "policy updates"
}

plugin "command" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    # Each run gets a clone of this repository at the pinned revision in its
    # working directory (src/) and runs there.
    repo     = "."
    revision = "HEAD"
    apply    = "overrides"
    command  = "go run ./examples/trainer/tinylm-train --config {{config}} --seed {{seed}} --steps 100 --out {{workdir}}/metrics.json"

    metric_file           = "{{workdir}}/metrics.json"
    metric_field          = "eval.val_bpb"
    time_limit            = "2m"
    infeasible_exit_codes = [3]
    infeasible_patterns   = ["training diverged"]

    # What a proposal may edit: knobs of examples/trainer/tinylm-train.
    knobs = {
      learning_rate = { default = "0.003", mechanism = "optimizer", values = ["0.001", "0.003", "0.01", "0.03"] }
      optimizer     = { default = "adam", mechanism = "optimizer", values = ["momentum", "adam"] }
      lr_schedule   = { default = "constant", mechanism = "schedule", values = ["constant", "cosine"] }
      width         = { default = "32", mechanism = "architecture", values = ["16", "32", "64"] }
      activation    = { default = "tanh", mechanism = "architecture", values = ["tanh", "relu", "gelu"] }
    }
  }
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
  trainer  = plugin.command
  baseline = 3.5  # val_bpb of tinylm-train's defaults after 100 steps
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
  learning_rate       = 0.5
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
  kind        = "slurm"
  concurrency = 2
  slurm {
    partition  = "debug"
    time_limit = "0:05:00"
    cpus       = 1
    array      = true
  }
}
