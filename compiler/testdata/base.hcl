# A small valid spec that the domain tests mutate one line at a time.
name = "base"

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
  family   = "autoregressive"
  trainer  = plugin.tinylm
  baseline = 0.98
  scale    = 0.01
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
    train   = 5
    holdout = 2
  }
}

environment "mdm" {
  family  = "diffusion"
  trainer = plugin.tinylm
  metric {
    name      = "val_nll"
    direction = "minimize"
  }
  run_cost {
    gpu   = "B200"
    gpus  = 8
    hours = 1.5
  }
  task "t1" {
    split = "train"
    scale = 0.02
  }
  task "t2" {
    split = "holdout"
    scale = 0.02
  }
}

role "proposer" {
  llm = plugin.offline
  tokens {
    in  = 6000
    out = 600
  }
  price {
    in  = 0.2
    out = 0.6
  }
}

role "rwm" {
  llm = plugin.offline
  tokens {
    in  = 60000
    out = 800
  }
  price {
    in  = 1.25
    out = 10
  }
}

role "builder" {
  llm = plugin.offline
  tokens {
    in  = 30000
    out = 8000
  }
  price {
    in  = 1.25
    out = 10
  }
}

role "judge" {
  kind = "critic"
  llm  = plugin.offline
  tokens {
    in  = 3000
    out = 200
  }
  price {
    in  = 0.05
    out = 0.2
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

critic "screen" {
  role            = role.judge
  votes           = 15
  threshold       = 0.25
  expected_routed = 0.363
}

loop "policy" {
  kind                = "rl"
  algorithm           = "dapo"
  steps               = 24
  rollout_every       = 8
  states              = 16
  proposals_per_state = 8
  reward              = reward.rwm_gain
  learning_rate       = 1e-6
}

# A second, small loop whose candidates the critic screens: uncertain ones
# are routed to a real run.
reward "verified" {
  source     = "real"
  value      = "gain > 0 ? 1 : -1"
  infeasible = "-1"
}

loop "screened" {
  preset              = "grpo"
  steps               = 1
  states              = 1
  proposals_per_state = 2
  learning_rate       = 0.5
  reward              = reward.verified
  screen              = critic.screen
}

records {
  seed_runs = 10
}

calibration {
  loop        = loop.policy
  after_steps = [8, 16]
  budget      = [5, 5]
}

evaluation {
  avg_at  = 2
  best_at = 4
}

budget {
  real_runs = 40
}
