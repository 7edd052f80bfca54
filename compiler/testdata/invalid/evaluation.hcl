# The evaluation's arms, world model and normalisation.
plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { CPU = 0.05 }
}

environment "tiny" {
  trainer = plugin.tinylm
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "CPU"
    gpus  = 1
    hours = 0.01
  }
  task "t1" {
    split = "train"
    scale = 0.1
  }
  task "h1" {
    split = "holdout"
  }
}

role "proposer" {
  llm = plugin.offline
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 0
    out = 0
  }
}

role "proposer_b" {
  kind = "proposer"
  llm  = plugin.offline
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 0
    out = 0
  }
}

role "rwm" {
  llm = plugin.offline
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 0
    out = 0
  }
}

reward "rwm_gain" {
  source     = "predicted"
  predictor  = role.rwm
  value      = "predicted_gain / scale"
  infeasible = "0"
}

loop "policy" {
  preset        = "grpo"
  steps         = 2
  states        = 2
  proposals_per_state = 2
  learning_rate = 0.5
  reward        = reward.rwm_gain
  proposer      = role.proposer
}

loop "other" {
  preset        = "grpo"
  steps         = 2
  states        = 2
  proposals_per_state = 2
  learning_rate = 0.5
  reward        = reward.rwm_gain
  proposer      = role.proposer_b
}

evaluation {
  proposer    = role.proposer
  avg_at      = 2
  states      = 0 # ERROR: E_RANGE evaluation.states must be at least 1
  normalize   = "scale" # ERROR: E_SCALE_MISSING evaluation normalises gains by scale
  base        = role.proposer_b # ERROR: E_CONFLICT evaluation arm role.proposer_b is trained by loop "other"
  icl_records = 8 # ERROR: E_NOT_APPLICABLE icl_records applies to an icl arm
  predictor   = role.proposer # ERROR: E_REF_KIND predictor of evaluation must be a role of kind rwm
}
