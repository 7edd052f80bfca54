# The shared body of critic-grpo.hcl and critic-grpo-verify-all.hcl: policy
# GRPO on MLS-Lite-Bench's 29 scored tasks (seed 002), one H100 for 45
# minutes a real run, the proposer trained after every step, 10,000 real
# verifications. It names the benchmark, the trainers, the LLM endpoint and
# the proposer and implementer; each spec that extends it adds its reward
# and loop (and critic-grpo.hcl its critic). Not a spec to run alone.
#
# You supply (none of these is in this repository):
#   ./bin/mls-lite-bench  the benchmark's plugin executable, in specs/bin/
#       (a plugin's source is relative to the spec you run): a program that
#       serves Assay's Benchmark interface with sdk.ServeBenchmark
#       (examples/plugin/README.md shows how, for a trainer). Asked for
#       environment mls_lite's tasks, with its config (args =
#       ["--scored-only"]), it answers the 29 scored tasks, each with its
#       split (train), baseline, scale, metric "score" and direction
#       (maximize). `assay init SPEC` then locks its SHA-256.
#   mls-lite-bench run --task T --config FILE --seed N
#       on PATH: trains and scores task T once with the proposal's edits
#       (FILE, overrides.json; docs/plugins.md, builtin:command) in the
#       run's own working directory, prints a line score=X (higher is
#       better) on stdout and exits 0; any other status is a failed run.
#   grpo_step.py  the policy update step, run once per policy step as
#       `python grpo_step.py --batch FILE --out DIR ...` (the arguments are
#       update_command's) in the update's own directory, so write its
#       absolute path there. It trains the proposer's LoRA adapter on the
#       step's batch (JSONL) with the loop's algorithm (GRPO or DAPO),
#       writes the adapter into --out and exits 0; a non-zero status, or
#       nothing in --out, fails the update (docs/policy-training.md).
#       examples/trainer/grpo_update.py is a complete one that reads the
#       same job from its ASSAY_* variables: set update_command =
#       "python3 /path/to/assay/examples/trainer/grpo_update.py".
# Without them, specs/laptop/critic-grpo.hcl runs the same loop on the
# built-in trainer, and a benchmark written as a task suite needs no plugin
# of its own (docs/task-suites.md; examples/suite is one).

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
