# The preamble every laptop ablation shares: the built-in tinylm trainer
# (real training of a tiny character-level language model, validation bits
# per byte) and the built-in offline LLM, on the local CPU at $0.05 an hour
# with 2 runs at a time, with 4 train tasks. verify-all.hcl, openevolve.hcl and lm2lm-top-rated.hcl
# extend it and set the holdout tasks and the proposer's temperature and
# prompt size; the other laptop specs extend those. Not a spec to run alone.

seed = 1

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { steps = 300 }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { CPU = 0.05 }
}

environment "tiny" {
  family  = "autoregressive"
  trainer = plugin.tinylm
  scale   = 0.2
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "CPU"
    gpus  = 1
    hours = 0.001
  }
  tasks {
    train = 4
  }
}

role "proposer" {
  llm         = plugin.offline
  concurrency = 4
  seconds     = 0.001
  tokens {
    out = 100
  }
  price {
    in  = 0
    out = 0
  }
}

executor {
  kind        = "local"
  concurrency = 2
}
