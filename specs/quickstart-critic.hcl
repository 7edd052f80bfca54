# Quickstart, critic loop: OpenEvolve-style evolution screened by a critic,
# on the local CPU, in under a minute.
#
#   go run ./cmd/assay run specs/quickstart-critic.hcl
#
# Per task, 2 islands evolve for 4 rounds (the best solution migrates every
# 2 rounds). Each island-round the proposer makes 6 ideas; each is
# implemented, summarized and judged by 8 critic votes; the idea with the
# best mean label rank is trained for real by tinylm, and it replaces its
# island's parent only when its real gain is higher.
#
# Expected figures (assay estimate):
#   real runs    2 baselines + 2 tasks x 2 islands x 4 rounds x 1 verification = 18
#   critic calls 16 island-rounds x 6 ideas x 8 votes = 768
# No baseline is declared, so the baselines phase first measures each train
# task's with one real run of the unchanged setup.

name        = "quickstart-critic"
description = "critic-screened evolution of a tiny language model's training setup"
seed        = 1

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { steps = 600 }
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
    train   = 2
    holdout = 0
  }
}

role "proposer" {
  llm         = plugin.offline
  temperature = 0.8
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
  # The offline builder fails a few builds (more for ideas with more
  # edits); a failed build makes no real run. The estimate's low end
  # assumes up to half fail.
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

role "summarizer" {
  llm         = plugin.offline
  temperature = 0.4
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 300
    out = 80
  }
  price {
    in  = 0
    out = 0
  }
}

role "critic" {
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 20
  }
  price {
    in  = 0
    out = 0
  }
}

critic "screen" {
  role      = role.critic
  votes     = 8
  labels    = "3way"
  aggregate = "majority"
  tie       = "route"
  threshold = 0.25
}

loop "evolve" {
  preset                  = "openevolve"
  islands                 = 2
  rounds                  = 4
  migration_every         = 2
  migration_rate          = 0.5
  ideas_per_round         = 6
  verifications_per_round = 1
  screen                  = critic.screen
  top_programs            = 2
  diverse_programs        = 1
  feature_bins            = { complexity = 3, mechanism = 4 }
}

budget {
  real_runs = 20
  usd       = 1
}

executor {
  kind        = "local"
  concurrency = 2
}
