# Built-in plugin configs checked against their schemas (stdlib/pluginconfig).
name = "pluginconfig"

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { step = 600 } # ERROR: E_PLUGIN_CONFIG did you mean "steps"?
}

plugin "tinylm_corpus" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { corpus = "grammer" } # ERROR: E_ENUM did you mean "grammar"?
}

plugin "openai" { # ERROR: E_MISSING config.base_url is missing
  kind   = "llm"
  source = "builtin:openai"
}

plugin "openai_typed" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:8000/v1", max_concurrency = "4" } # ERROR: E_PLUGIN_CONFIG want a number
}

plugin "openai_key" {
  kind   = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:8000/v1", api_key = "sk-do-not-store" } # ERROR: E_PLUGIN_CONFIG never read from the spec
}

# Both command and metric_file are missing; the golden file shows both.
plugin "runner" { # ERROR: E_MISSING is missing
  kind   = "trainer"
  source = "builtin:command"
}

plugin "runner_list" {
  kind   = "trainer"
  source = "builtin:command"
  config = { command = ["train", "--fast"], metric_regex = "loss=([0-9.]+)" } # ERROR: E_PLUGIN_CONFIG want a string
}

plugin "runner_knob" {
  kind   = "trainer"
  source = "builtin:command"
  config = { # ERROR: E_PLUGIN_CONFIG config.knobs.lr.valus is not a setting
    command      = "python train.py --config {{config}}"
    metric_regex = "loss=([0-9.]+)"
    knobs        = { lr = { default = "0.1", valus = ["0.1"] } }
  }
}

plugin "own" {
  kind   = "trainer"
  source = "./bin/my-trainer"
  config = { anything = ["goes", 1] }
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

records {
  seed_runs = 10
}

calibration {
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
