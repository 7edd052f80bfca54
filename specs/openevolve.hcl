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
# The tasks are MLS-Bench-Lite's 29 scored ones, as a task suite:
# common/mls-bench-lite.hcl. validate, estimate and plan need nothing of
# yours; check and run need your checkout (-var mls_bench_root=DIR) and
# the manifest's placeholders written (its header says which).

extends = "common/mls-bench-lite.hcl" # the suite, in source mode

name        = "openevolve"
description = "OpenEvolve verifying the one idea it makes per island-round, with no critic"
seed        = 2

# MLS-Bench-Lite's manifest (common/mls-bench-lite.hcl runs it).
environment "mls_lite" {
  suite = "suites/mls-bench-lite.json"
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
