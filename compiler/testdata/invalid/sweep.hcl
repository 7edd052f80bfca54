# Sweep axes: bad paths and bad values are reported at the axis.
plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { B200 = 14.0 }
}

environment "olmo3" {
  trainer = plugin.tinylm
  scale   = 0.01
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "B200"
    gpus  = 8
    hours = 1.5
  }
  tasks {
    train   = 2
    holdout = 1
  }
}

role "proposer" {
  llm = plugin.offline
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 1
    out = 1
  }
}

role "rwm" {
  llm = plugin.offline
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 1
    out = 1
  }
}

reward "gain" {
  source     = "predicted"
  predictor  = role.rwm
  clip       = 6
  value      = "clip(predicted_gain / scale, -c, c)"
  infeasible = "-c"
}

loop "policy" {
  kind                = "rl"
  algorithm           = "grpo"
  steps               = 20
  states              = 4
  proposals_per_state = 4
  reward              = reward.gain
  learning_rate       = 1e-6
}

sweep {
  axis "loop.policy.stpes" { # ERROR: E_SWEEP_PATH did you mean "steps"
    values = [10, 20]
  }
  axis "reward.gain.clip" {
    values = [
      6,
      -1,
    ]
  }
  axis "loop.policy.states" {
    values = [
      4,
      2.5, # ERROR: E_SWEEP_VALUE whole number
    ]
  }
}
