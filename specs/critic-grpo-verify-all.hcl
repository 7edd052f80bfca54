# Policy GRPO with verify-all rewards: the baseline of critic-grpo.hcl (seed 002).
#
# Each step, 16 parents x 16 rollouts = 256 candidate ideas, and every one is
# implemented and verified by a real run. Reward +1 for Improve, -1 otherwise.
# The loop runs until 10,000 real verifications are spent.
#
# The proposer is trained after every step as in critic-grpo.hcl (the same
# update block and cost), so the comparison is trained against trained.
#
# Expected figures (assay estimate):
#   steps      10,000 / 256 = 39
#   real runs  39 x 256 = 9,984
#   updates    39, each 8 H100 GPUs x 15 minutes = 2 GPU-hours

name        = "critic-grpo-verify-all"
description = "policy GRPO whose every candidate is verified by a real run"
seed        = 2

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

reward "improve" {
  source     = "real"
  value      = "gain > 0 ? 1 : -1"
  infeasible = "-1"
}

loop "policy" {
  preset              = "grpo"
  until_budget        = true
  states              = 16 # parents
  proposals_per_state = 16 # rollouts per parent
  reward              = reward.improve
  learning_rate       = 1e-6
  # As the critic-in-loop run: a parent whose 16 children all improve on it
  # hands over to one of them, and a build that fails gets 3 repairs.
  new_parent = "all_improve"
  repairs    = 3

  # One GRPO step on 256 candidates, priced as critic-grpo.hcl's: 8 H100
  # GPUs for 15 minutes a step, an assumption (the paper gives no training
  # cost).
  update {
    trainer = plugin.rl
    gpu     = "H100"
    gpus    = 8
    hours   = minutes(15)
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
