# Vanilla OpenEvolve on MLS-Lite-Bench (seed 002): the "None" column.
#
# Per island-round the proposer makes one idea, it is implemented and
# verified by a real run: no critic screens it, so the loop generates only
# the ideas it verifies, as vanilla OpenEvolve does (a loop without a
# screen makes verifications_per_round ideas). critic-evolve.hcl builds on
# this spec and adds the critic that picks the idea to verify among 16, at
# the same 30 verifications per task.
#
# Expected figures (assay estimate):
#   real runs     29 tasks x 3 islands x 10 rounds x 1 verification = 870
#   proposer, implementer calls  29 x 30 x 1 = 870 each
#
# You supply ./bin/mls-lite-bench and mls-lite-bench, which are not in this
# repository: MLS-Lite-Bench's benchmark plugin (in specs/bin/), which lists
# the 29 scored tasks with their baselines, and its command, which trains
# and scores one candidate and prints score=X. critic-grpo.hcl runs the same
# benchmark: specs/common/critic-grpo.hcl's header says what each must do.

name        = "openevolve"
description = "OpenEvolve verifying the one idea it makes per island-round, with no critic"
seed        = 2

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

loop "evolve" {
  preset                  = "openevolve"
  islands                 = 3
  rounds                  = 10
  migration_every         = 4
  verifications_per_round = 1
  select                  = "random"
}

budget {
  real_runs = 870
}

executor {
  kind        = "local"
  concurrency = 8
  gpus        = 8
}
