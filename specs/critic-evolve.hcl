# Critic-screened OpenEvolve on MLS-Lite-Bench (seed 002, screening in evolution).
#
# openevolve.hcl, plus a critic: per island-round the proposer makes 16
# ideas, each is implemented and summarised, the critic votes 16 times on
# each, and only the idea with the best mean label rank is verified by a
# real run. Against openevolve.hcl this is the papers' critic-vs-None
# comparison at the same 30 verifications per task.
#
# Expected figures (assay estimate):
#   real runs     29 tasks x 3 islands x 10 rounds x 1 verification = 870
#   critic calls  29 x 30 island-rounds x 16 ideas x 16 votes = 222,720
#   proposer, implementer, summarizer calls  29 x 30 x 16 = 13,920 each

extends = "openevolve.hcl"

name        = "critic-evolve"
description = "OpenEvolve where a 16-vote critic picks the one idea per round that is verified"

variable "votes" {
  type        = number
  default     = 16
  description = "critic samples per idea (AUROC saturates past 16)"
}

role "summarizer" {
  llm         = plugin.openai
  model       = "gpt-5-mini"
  temperature = 0.4
  concurrency = 32
  seconds     = 10
  tokens {
    in  = 6000
    out = 400
  }
  price {
    in  = 0.25
    out = 2.00
  }
}

role "critic" {
  llm         = plugin.openai
  model       = "qwen3-8b-critic"
  temperature = 0.7
  concurrency = 256
  seconds     = 3
  tokens {
    in  = 3000
    out = 200
  }
  price {
    in  = 0.05
    out = 0.20
  }
}

critic "screen" {
  role      = role.critic
  votes     = var.votes
  labels    = "5way"
  aggregate = "mean_rank"
  tie       = "route"
  threshold = 0.25
}

loop "evolve" {
  ideas_per_round = 16 # the critic picks the one verified among them
  select          = "best_mean_rank"
  screen          = critic.screen
}
