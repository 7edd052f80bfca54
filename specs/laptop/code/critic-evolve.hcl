# OpenEvolve with code changes and a critic (specs/laptop/critic-evolve.hcl
# on the example task suite): openevolve.hcl here, plus a 2-vote 5-way
# critic that ranks each round's 3 ideas, each a patch built and committed
# in a git worktree of the imported suite; the idea with the best mean
# label rank is trained for real, at the same 8 verifications.
#
# Expected figures (assay estimate):
#   real runs     8 (a failed build leaves the critic the other ideas)
#   critic calls  2 tasks x 2 islands x 2 rounds x 3 ideas x 2 votes =
#                 48 (less the failed builds)

extends = "openevolve.hcl"

name        = "laptop-code-critic-evolve"
description = "OpenEvolve in miniature on code changes of the example suite, where a 2-vote critic picks the idea to verify"

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
  votes     = 2
  labels    = "5way"
  aggregate = "mean_rank"
  tie       = "route"
  threshold = 0.25
}

loop "evolve" {
  ideas_per_round = 3 # the critic picks the one verified among them
  select          = "best_mean_rank"
  screen          = critic.screen
}
