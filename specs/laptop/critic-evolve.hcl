# OpenEvolve at laptop scale with a critic (critic-evolve.hcl in
# miniature): openevolve.hcl, plus an 8-vote 5-way critic that ranks each
# round's 6 ideas; the idea with the best mean label rank is verified, at
# the same 48 verifications.
#
# Expected figures (assay estimate):
#   real runs     52 (a failed build leaves the critic the other ideas)
#   critic calls  4 tasks x 12 island-rounds x 6 ideas x 8 votes = 2,304
#                 (less the failed builds)

extends = "openevolve.hcl"

name        = "laptop-critic-evolve"
description = "OpenEvolve in miniature where an 8-vote critic picks the idea to verify"

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
  labels    = "5way"
  aggregate = "mean_rank"
  tie       = "route"
  threshold = 0.25
}

loop "evolve" {
  ideas_per_round = 6 # the critic picks the one verified among them
  select          = "best_mean_rank"
  screen          = critic.screen
}
