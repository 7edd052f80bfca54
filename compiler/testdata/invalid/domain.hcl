# Domain rules: each marked line breaks one.
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
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "B20" # ERROR: E_PRICE_MISSING has no price
    gpus  = 8
    hours = { low = 2, expected = 1.5, high = 3 } # ERROR: E_RANGE low <= expected <= high
  }
  task "a" {
    split = "train"
    scale = 0.01
  }
  task "b" { # ERROR: E_SCALE_MISSING has no reward scale
    split = "train"
  }
  task "c" {
    split = "holdout"
  }
}

role "proposer" {
  llm = plugin.offline
  tokens {
    in  = { low = -5, expected = 100, high = 200 } # ERROR: E_RANGE tokens.in (low) must be at least 0
    out = 10
  }
  price {
    in  = 1
    out = 1
  }
}

role "rwm" { # ERROR: W_LLM_UNPRICED no tokens or price
  llm = plugin.offline
}

role "critic" { # ERROR: W_LLM_UNPRICED no tokens or price
  llm = plugin.offline
}

reward "gain" {
  source     = "predicted"
  predictor  = role.rwm
  clip       = 0 # ERROR: E_CLIP greater than 0
  value      = "clip(predicted_gain / scale, -c, c)"
  infeasible = "-c * min_vaild" # ERROR: E_FORMULA_NAME unknown name
}

critic "screen" { # ERROR: E_UNUSED_BLOCK screens no loop
  role            = role.critic
  votes           = 8 # ERROR: E_TIE_RULE can tie
  threshold       = 1.25 # ERROR: E_THRESHOLD [0, 1)
  expected_routed = 1.5 # ERROR: E_EXPECTED_ROUTED [0, 1]
  route           = "uncertainty" # ERROR: E_FORMULA_TYPE
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

records {
  seed_runs = 10
}

calibration {
  after_steps = [10, 5, 15] # ERROR: E_CALIBRATION_STEPS strictly increasing
  budget      = [5, 5] # ERROR: E_CALIBRATION_BUDGET 2 entries for 3
}

budget {
  real_runs = 15 # ERROR: E_BUDGET_FIT less than the fixed real runs
}

executor {
  kind = "slurm"
  slurm {
    poll_seconds = 0.5 # ERROR: E_RANGE poll_seconds must lie in [1, 86400]
  }
}
