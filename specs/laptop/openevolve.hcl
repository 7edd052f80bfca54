# OpenEvolve at laptop scale with no critic (openevolve.hcl in miniature):
# per task, 2 islands evolve for 6 rounds (the best solution migrates every
# 3 rounds); each island-round the proposer makes one idea, it is built and
# trained for real by tinylm: with no critic to choose, the loop makes only
# the ideas it verifies. A child replaces its island's parent only when its
# real gain is higher.
#
# Expected figures (assay estimate):
#   real runs  4 baselines + 4 tasks x 2 islands x 6 rounds = 52 at most;
#              49.6 expected (28 - 52), as a failed build verifies nothing
#   proposer, implementer calls  4 x 2 x 6 = 48 each

extends = "common/preamble.hcl" # the laptop specs' shared trainer, LLM, prices and environment

name        = "laptop-openevolve"
description = "OpenEvolve in miniature verifying the one idea it makes per island-round"

environment "tiny" {
  tasks {
    holdout = 0
  }
}

role "proposer" {
  temperature = 0.8
  tokens {
    in = 500
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

loop "evolve" {
  preset                  = "openevolve"
  islands                 = 2
  rounds                  = 6
  migration_every         = 3
  verifications_per_round = 1
  select                  = "random"
}

budget {
  real_runs = 52
  usd       = 1
}
