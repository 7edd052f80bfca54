# The shared body of critic-grpo.hcl and critic-grpo-verify-all.hcl: policy
# GRPO on MLS-Bench-Lite's 29 scored tasks (seed 002), one H100 for 45
# minutes a real run, the proposer trained after every step, 10,000 real
# verifications. The tasks are mls-bench-lite.hcl's task suite; this file
# adds the policy trainer, the LLM endpoint and the proposer and
# implementer; each spec that extends it adds its reward and loop (and
# critic-grpo.hcl its critic). Not a spec to run alone.
#
# validate, estimate and plan need nothing of yours. check and run need
# what mls-bench-lite.hcl's header lists (your checkout, -var
# mls_bench_root=DIR, and the manifest's placeholders written), and the
# policy update step, -var grpo_update=PATH: the absolute path of
# examples/trainer/grpo_update.py (TRL and PEFT: GRPO or DAPO of the
# proposer's LoRA adapter on the step's batch, read from its ASSAY_*
# variables, docs/policy-training.md), run once per policy step in the
# update's own directory. check and run refuse the spec until it is given.
# Without them, specs/laptop/critic-grpo.hcl runs the same loop on the
# built-in trainer, and specs/laptop/code/critic-grpo.hcl on code changes
# of the example suite.

extends = "mls-bench-lite.hcl" # the suite, in source mode

seed = 2

variable "verifications" {
  type        = number
  default     = 10000
  description = "real verifications the whole run may spend"
}

variable "grpo_update" {
  type        = string
  default     = ""
  supply      = "the absolute path of examples/trainer/grpo_update.py in your clone of Assay (TRL and PEFT; docs/policy-training.md), or of an update step of your own that reads the same ASSAY_* variables"
  description = "the policy update step, run as python3 PATH once per GRPO step"
}

# The proposer policy is trained after every GRPO step (see
# docs/policy-training.md): the update step trains a LoRA adapter on the
# step's batch, reading the job from its ASSAY_* variables, and the
# proposer's endpoint then serves it.
plugin "rl" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    update_command = "python3 ${var.grpo_update}"
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

role "proposer" {
  llm         = plugin.openai
  model       = "qwen3-8b-policy"
  temperature = 1.0
  concurrency = 64
  seconds     = 10
  tokens {
    in  = 4000
    out = 800
  }
  price {
    in  = 0.05
    out = 0.20
  }
}

role "implementer" {
  llm         = plugin.openai
  model       = "gpt-5-mini"
  temperature = 0.2
  concurrency = 64
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

budget {
  real_runs = var.verifications
}

executor {
  kind        = "local"
  concurrency = 16
  gpus        = 16
}
