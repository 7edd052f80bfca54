# Policy updates and dynamic sampling: each marked line breaks one rule.
plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

plugin "openai" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:8000/v1" }
}

plugin "runs" {
  kind   = "trainer"
  source = "builtin:command"
  config = { command = "python train.py", metric_regex = "loss=([0-9.]+)" } # ERROR: E_MISSING its config has no update_command
}

plugin "updater" {
  kind   = "trainer"
  source = "builtin:command"
  config = { update_command = "python grpo_step.py --batch {{batch}} --out {{adapter_dir}}" }
}

prices {
  gpu_hourly = { B200 = 14.0 }
}

executor {
  kind = "local"
  gpus = 4
}

environment "olmo3" {
  trainer  = plugin.tinylm
  baseline = 0.98
  scale    = 0.01
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "B200"
    gpus  = 1
    hours = 1.5
  }
  tasks {
    train   = 5
    holdout = 2
  }
}

role "served" {
  kind = "proposer"
  llm  = plugin.openai
  tokens {
    in  = 100
    out = 10
  }
  price {
    in  = 1
    out = 1
  }
}

role "own" {
  kind = "proposer"
  llm  = plugin.offline
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
  source    = "predicted"
  predictor = role.rwm
  value      = "predicted_gain / scale"
  infeasible = "-1"
}

loop "served" {
  preset              = "dapo"
  proposer            = role.served
  steps               = 4
  states              = 2
  proposals_per_state = 4
  reward              = reward.gain
  learning_rate       = 1e-6
  expected_dropped    = 0.2 # ERROR: E_NOT_APPLICABLE refills none
  update {
    trainer = plugin.runs
    gpu     = "H100" # ERROR: E_PRICE_MISSING has no price
    gpus    = 8 # ERROR: E_EXECUTOR_GPUS executor has 4
    hours   = 0 # ERROR: E_RANGE update.hours must be greater than 0
    adapter = "a b" # ERROR: E_RANGE not a name
    clip_low     = 1 # ERROR: E_RANGE update.clip_low must be below 1
    clip_high    = -0.1 # ERROR: E_RANGE update.clip_high must be at least 0
    kl_coef      = -0.04 # ERROR: E_RANGE update.kl_coef must be at least 0
    epochs       = 0 # ERROR: E_RANGE update.epochs must be at least 1
    weight_decay = -0.01 # ERROR: E_RANGE update.weight_decay must be at least 0
  }
}

loop "keeps" {
  preset              = "grpo"
  proposer            = role.served
  steps               = 4
  states              = 2
  proposals_per_state = 4
  reward              = reward.gain
  learning_rate       = 1e-6
  resample_rounds     = 2 # ERROR: E_NOT_APPLICABLE keeps them
  update { # ERROR: E_MISSING update.hours is missing
    trainer = plugin.tinylm # ERROR: E_REF_KIND cannot run a policy update
    gpu     = "B200"
    gpus    = 1
  }
}

loop "own" {
  preset              = "grpo"
  proposer            = role.own
  steps               = 4
  states              = 2
  proposals_per_state = 4
  reward              = reward.gain
  learning_rate       = 0.5
  update { # ERROR: E_NOT_APPLICABLE updates the policy itself
    trainer = plugin.runs
    gpu     = "B200"
    gpus    = 1
    hours   = 1
  }
}

environment "nocommand" {
  trainer  = plugin.updater # ERROR: E_MISSING has an update_command but no command
  baseline = 0.98
  scale    = 0.01
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "B200"
    gpus  = 1
    hours = 1
  }
  tasks {
    train = 1
  }
}

loop "evolve" {
  kind                    = "evolution"
  proposer                = role.served
  islands                 = 1
  rounds                  = 2
  verifications_per_round = 1
  update { # ERROR: E_LOOP_FIELD not a block of an evolution loop
    trainer = plugin.runs
    gpu     = "B200"
    gpus    = 1
    hours   = 1
  }
}
