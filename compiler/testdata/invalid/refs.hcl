# References and required fields.
plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
}

plugin "offline" { # ERROR: E_MISSING source is missing
  kind = "llm"
}

prices {
  gpu_hourly = { B200 = 14.0 }
}

environment "olmo3" { # ERROR: E_MISSING metric is missing
  trainer = plugin.offline # ERROR: E_REF_KIND must be a trainer plugin
  scale   = 0.01
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

environment "mdm" {
  trainer = plugin.tinylm
  scale   = 0.01
  run_cost { # ERROR: E_MISSING run_cost.hours is missing
    gpu  = "B200"
    gpus = 8
  }
  tasks {
    train = 2
  }
  metric { # ERROR: E_MISSING metric.direction is missing
    name = "val_nll"
  }
}

role "proposer" {
  llm = plugin.ofline # ERROR: E_UNKNOWN_REF which is not declared
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 1
    out = 1
  }
}

role "judge" { # ERROR: E_MISSING kind is missing
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
  predictor  = role.proposer # ERROR: E_PREDICTOR_ROLE kind rwm
  clip       = 6
  value      = "clip(predicted_gain / scale, -c, c)"
  infeasible = "-c"
}

loop "policy" { # ERROR: E_LOOP_FIELD needs steps or until_budget
  kind                = "rl"
  algorithm           = "grpo"
  states              = 4
  proposals_per_state = 4
  reward              = reward.gian # ERROR: E_UNKNOWN_REF which is not declared
  learning_rate       = 1e-6
  islands             = 3 # ERROR: E_LOOP_FIELD not a field of a rl loop
}
