name = "critic-grpo"
description = "policy GRPO whose rewards come from a critic, routing uncertain candidates to real runs"
seed = 2

variable "verifications" {
  type = number
  default = 10000
  description = "real verifications the whole run may spend"
}

locals {
  votes = 16
  threshold = 0.25 # u < 0.25: at most 3 of 16 votes disagree
}

plugin "mls_lite" {
  kind = "benchmark"
  source = "./bin/mls-lite-bench"
  config = { args = ["--scored-only"] }
}

plugin "runner" {
  kind = "trainer"
  source = "builtin:command"
  config = { command = "mls-lite-bench run --task {{task}} --config {{config}} --seed {{seed}}", metric_regex = "score=([0-9.eE+-]+)" }
}

plugin "rl" {
  kind = "trainer"
  source = "builtin:command"
  config = { update_command = "python grpo_step.py --batch {{batch}} --out {{adapter_dir}} --model {{base_model}} --adapter {{previous_adapter_dir}} --algorithm {{algorithm}} --lr {{learning_rate}} --clip-low {{clip_low}} --clip-high {{clip_high}} --kl {{kl_coef}} --token-level {{token_level}} --epochs {{epochs}}" }
}

plugin "openai" {
  kind = "llm"
  source = "builtin:openai"
  config = { base_url = "http://127.0.0.1:8000/v1" }
}

prices {
  preset = "cloud-2026" # H100
}

environment "mls_lite" {
  family = "mixed"
  benchmark = plugin.mls_lite
  trainer = plugin.runner
  metric {
    name = "score"
    direction = "maximize"
  }
  run_cost {
    gpu = "H100"
    gpus = 1
    hours = minutes(45)
  }
  tasks {
    train = 29
    holdout = 0
  }
}

role "proposer" {
  llm = plugin.openai
  model = "qwen3-8b-policy"
  temperature = 1.0
  concurrency = 64
  seconds = 10
  tokens {
    in = 4000
    out = 800
  }
  price {
    in = 0.05
    out = 0.20
  }
}

role "implementer" {
  llm = plugin.openai
  model = "gpt-5-mini"
  temperature = 0.2
  concurrency = 64
  seconds = seconds("1m")
  tokens {
    in = 12000
    out = 4000
  }
  price {
    in = 0.25
    out = 2.00
  }
}

role "summarizer" {
  llm = plugin.openai
  model = "gpt-5-mini"
  temperature = 0.4
  concurrency = 64
  seconds = 10
  tokens {
    in = 6000
    out = 400
  }
  price {
    in = 0.25
    out = 2.00
  }
}

role "critic" {
  llm = plugin.openai
  model = "qwen3-8b-critic"
  temperature = 0.7
  concurrency = 256
  seconds = 3
  tokens {
    in = 3000
    out = 200
  }
  price {
    in = 0.05
    out = 0.20
  }
}

critic "screen" {
  role = role.critic
  votes = local.votes
  labels = "3way"
  aggregate = "majority"
  tie = "route"
  threshold = local.threshold
  expected_routed = percent(36.3)
}

reward "improve" {
  source = "critic"
  predictor = critic.screen
  value = "label_score > 0 ? 1 : -1"
  infeasible = "-1"
}

loop "policy" {
  preset = "critic-grpo"
  until_budget = true
  states = 16 # parents
  proposals_per_state = 16 # rollouts per parent
  reward = reward.improve
  learning_rate = 1e-6
  screen = critic.screen
  update {
    hours = 0.25
    gpus = 8
    gpu = "H100"
    trainer = plugin.rl
  }
}

budget {
  real_runs = var.verifications
}

executor {
  kind = "local"
  concurrency = 16
  gpus = 16
}
