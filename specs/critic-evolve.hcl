# Critic-screened OpenEvolve on MLS-Lite-Bench (seed 002, screening in evolution).
#
# Per island-round the proposer makes 16 ideas, each is implemented and
# summarised, the critic votes 16 times on each, and only the idea with the
# best mean label rank is verified by a real run.
#
# Expected figures (assay estimate):
#   real runs     29 tasks x 3 islands x 10 rounds x 1 verification = 870
#   critic calls  29 x 30 island-rounds x 16 ideas x 16 votes = 222,720
#   proposer, implementer, summarizer calls  29 x 30 x 16 = 13,920 each

name        = "critic-evolve"
description = "OpenEvolve where a 16-vote critic picks the one idea per round that is verified"
seed        = 2

variable "votes" {
  type        = number
  default     = 16
  description = "critic samples per idea (AUROC saturates past 16)"
}

# The benchmark's own plugin executable: builtin:command serves trainers only.
plugin "mls_lite" {
  kind   = "benchmark"
  source = "./bin/mls-lite-bench"
  config = { args = ["--scored-only"] }
}

plugin "runner" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    command      = "mls-lite-bench run --task {{task}} --config {{config}} --seed {{seed}}"
    metric_regex = "score=([0-9.eE+-]+)"
  }
}

plugin "openai" {
  kind   = "llm"
  source = "builtin:openai"
  # Requests go only here: a local OpenAI-compatible server (vLLM, Ollama,
  # llama.cpp) on this placeholder address; put your own endpoint in. The
  # API key, if any, is read from $OPENAI_API_KEY.
  config = { base_url = "http://127.0.0.1:8000/v1" }
}

prices {
  preset = "cloud-2026" # H100
}

environment "mls_lite" {
  family    = "mixed"
  benchmark = plugin.mls_lite
  trainer   = plugin.runner
  metric {
    name      = "score"
    direction = "maximize"
  }
  run_cost {
    gpu   = "H100"
    gpus  = 1
    hours = minutes(45)
  }
  tasks {
    train   = 29 # the scored tasks of 30, over 12 domains
    holdout = 0
  }
}

role "proposer" {
  llm         = plugin.openai
  model       = "gpt-5-mini"
  temperature = 0.8
  concurrency = 32
  seconds     = 15
  tokens {
    in  = 8000
    out = 1000
  }
  price {
    in  = 0.25
    out = 2.00
  }
}

role "implementer" {
  llm         = plugin.openai
  model       = "gpt-5-mini"
  temperature = 0.2
  concurrency = 32
  seconds     = seconds("1m")
  tokens {
    in  = 12000
    out = 4000
  }
  price {
    in  = 0.25
    out = 2.00
  }
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
  preset                  = "openevolve"
  islands                 = 3
  rounds                  = 10
  migration_every         = 4
  migration_rate          = 0.1 # OpenEvolve's: a tenth of an island's programs (at least one)
  ideas_per_round         = 16
  verifications_per_round = 1
  select                  = "best_mean_rank"
  screen                  = critic.screen
  # OpenEvolve's prompt and archive: the island's 3 best programs and 2
  # elites of other MAP-Elites cells are shown beside the parent.
  top_programs     = 3
  diverse_programs = 2
  feature_bins     = { complexity = 10, diversity = 10 }
}

budget {
  real_runs = 870
}

executor {
  kind        = "local"
  concurrency = 8
  gpus        = 8
}
