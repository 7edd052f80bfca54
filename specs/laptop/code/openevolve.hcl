# OpenEvolve with code changes and no critic (specs/laptop/openevolve.hcl
# on the example task suite): on each of the suite's 2 train tasks, 2
# islands evolve for 2 rounds (the best solution migrates after each);
# each island-round the proposer makes one idea, the implementer writes it as a
# patch of the island's parent program (a commit: train.go or model.go
# changed), built with go vet and committed in a git worktree of the
# imported suite, and trained for real. A child replaces its island's
# parent only when its real gain is higher, so evolution's parents are
# commits.
#
# Expected figures (assay estimate):
#   real runs  0 baselines (suite.json anchors them) + 2 tasks x 2
#              islands x 2 rounds = 8 at most; 7.6 expected (4 - 8), as
#              a failed build verifies nothing
#   proposer, implementer calls  2 x 2 x 2 = 8 each (and repairs)

extends = "common/preamble.hcl" # the example suite in source mode

name        = "laptop-code-openevolve"
description = "OpenEvolve in miniature on code changes of the example suite, verifying the one idea it makes per island-round"

role "proposer" {
  temperature = 0.8
}

# The implementer is shown train.go and model.go whole.
role "implementer" {
  build_failures = { low = 0, expected = 0.05, high = 0.5 }
  llm            = plugin.offline
  concurrency    = 4
  seconds        = 0.001
  tokens {
    in  = { low = 1000, expected = 2500, high = 4000 }
    out = { low = 50, expected = 200, high = 400 }
  }
  price {
    in  = 0
    out = 0
  }
}

loop "evolve" {
  preset                  = "openevolve"
  islands                 = 2
  rounds                  = 2
  migration_every         = 1
  verifications_per_round = 1
  select                  = "random"
}

budget {
  real_runs = 8
  usd       = 1
}
