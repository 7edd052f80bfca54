# The quickstart loop on a Slurm cluster, with the command trainer.
#
# Every real run is a Slurm job that runs a real (small) training command of
# this repository, examples/trainer/tinylm-train: it reads the proposal's
# edits from an overrides file, trains a tiny character-level language model
# on the CPU and writes metrics.json. Seed records, an RL loop on predicted
# gain, one calibration round and the holdout evaluation, as in
# small-local.hcl; only where the runs go differs. See docs/cluster.md.
#
# Run it from the repository root on a machine that can reach the cluster
# (`sinfo` answers); .ci/slurm-up.sh starts a one-node cluster for trying it.
#
# Expected figures (assay estimate):
#   real runs  3 baselines + 4 seed + 2 calibration + 1 holdout task x 2 = 11
#   rwm calls  4 steps x 2 states x 4 proposals = 32
# No baseline is declared, so the baselines phase measures each task's
# (2 train + 1 holdout) with one job of the unedited command first.

name        = "quickstart-slurm"
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
    command  = "go run ./examples/trainer/tinylm-train --config {{config}} --seed {{seed}} --steps 300 --out {{workdir}}/metrics.json"

    metric_file           = "{{workdir}}/metrics.json"
    metric_field          = "eval.val_bpb"
    time_limit            = "10m"
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
  preset = "cloud-2026"
}

environment "tiny" {
  family  = "autoregressive"
  trainer = plugin.command
  scale   = 0.05 # tau_e: a gain of 0.05 bpb is a reward of 1
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpus  = 0 # CPU work: the jobs ask Slurm for no GPU
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
  kind        = "slurm"
  concurrency = 2
  slurm {
    partition  = "debug"
    time_limit = "0:15:00"
    cpus       = 1
    array      = true
  }
}
