# The example task suite at laptop scale: GRPO on the four tasks of
# examples/suite (two classification, two regression; train.go, a small
# MLP trained for real on the CPU in under a second), every candidate run
# for real, then the policy and Base evaluated on the suite's two held-out
# tasks. The suite's manifest gives each task's domain, description,
# evaluation command, baseline and normalisation bounds; `assay report`
# shows normalised scores per task and domain, and held-out averages.
# Proposals are knob edits, written to overrides.json, which train.go reads
# from $ASSAY_CONFIG.
#
# Expected figures (assay estimate):
#   real runs  0 baselines (the manifest anchors them) + 2 steps of
#              2 states x 2 proposals = 8 + 2 holdout tasks x 1 state x
#              2 x 2 arms = 8; 16 in all

name        = "laptop-suite"
description = "GRPO on real runs of the example task suite, then against Base on its held-out tasks"
seed        = 1

plugin "suite" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    # Each task's evaluation command (suite.json's evaluate, `go run .
    # -task NAME` in examples/suite) replaces a command here.
    metric_regex          = "(?m)^val_loss=([0-9.eE+-]+)$"
    overrides_file        = "overrides.json"
    infeasible_exit_codes = [3]
    # go run reads its build cache and toolchain settings from these.
    pass_env = ["GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOROOT", "GOTOOLCHAIN", "XDG_CACHE_HOME"]

    # What a proposal may edit: the hyperparameters of train.go.
    knobs = {
      lr         = { default = 0.03, mechanism = "optimizer", values = [0.01, 0.03, 0.1, 0.3, 1] }
      schedule   = { default = "constant", mechanism = "schedule", values = ["constant", "cosine", "step"] }
      epochs     = { default = 60, mechanism = "schedule", values = [30, 60, 120, 240] }
      hidden     = { default = 4, mechanism = "architecture", values = [0, 4, 16, 32] }
      activation = { default = "tanh", mechanism = "architecture", values = ["tanh", "relu"] }
      init_scale = { default = 1, mechanism = "initialisation", values = [0.5, 1, 2] }
      l2         = { default = 0, mechanism = "regularisation", values = [0, 0.0001, 0.001, 0.01] }
    }
  }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { CPU = 0.05 }
}

environment "example" {
  suite   = "../../examples/suite/suite.json"
  trainer = plugin.suite
  scale   = 0.05
  run_cost {
    gpus = 0 # CPU work
    # A run takes about a second; go run's first build of the program
    # takes longer, which the high figure (each run's time limit) allows.
    hours = { low = 0.00005, expected = 0.0003, high = 0.03 }
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
  steps               = 2
  states              = 2
  proposals_per_state = 2
  reward              = reward.improve
  learning_rate       = 0.5
}

evaluation {
  split   = "holdout"
  states  = 1
  avg_at  = 2
  best_at = 2
  base    = role.proposer
}

budget {
  real_runs = 16
  usd       = 1
}

executor {
  kind        = "local"
  concurrency = 2
}
