# The shared body of critic-grpo.hcl and critic-grpo-verify-all.hcl: policy
# GRPO on MLS-Lite-Bench's 29 scored tasks (seed 002), one H100 for 45
# minutes a real run, the proposer trained after every step, 10,000 real
# verifications. It names the benchmark, the trainers, the LLM endpoint and
# the proposer and implementer; each spec that extends it adds its reward
# and loop (and critic-grpo.hcl its critic). Not a spec to run alone.

seed = 2

variable "verifications" {
  type        = number
  default     = 10000
  description = "real verifications the whole run may spend"
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

# The proposer policy is trained by your RL framework after every GRPO step
# (see docs/policy-training.md): update_command trains a LoRA adapter on the
# step's batch and the proposer's endpoint then serves it.
plugin "rl" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    update_command = "python grpo_step.py --batch {{batch}} --out {{adapter_dir}} --model {{base_model}} --adapter {{previous_adapter_dir}} --algorithm {{algorithm}} --lr {{learning_rate}} --clip-low {{clip_low}} --clip-high {{clip_high}} --kl {{kl_coef}} --token-level {{token_level}} --epochs {{epochs}}"
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
    train   = 29
    holdout = 0
  }
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
