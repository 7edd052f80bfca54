name = "critic-grpo"
description = "policy GRPO whose rewards come from a critic, routing uncertain candidates to real runs"
seed = 2

variable "mls_bench_root" {
  type = string
  default = ""
  description = "your checkout of MLS-Bench's tasks, one directory per task of specs/suites/mls-bench-lite.json (empty: validate, estimate and plan work; check and run refuse the suite)"
}

variable "verifications" {
  type = number
  default = 10000
  description = "real verifications the whole run may spend"
}

variable "grpo_update" {
  type = string
  default = ""
  supply = "the absolute path of examples/trainer/grpo_update.py in your clone of Assay (TRL and PEFT; docs/policy-training.md), or of an update step of your own that reads the same ASSAY_* variables"
  description = "the policy update step, run as python3 PATH once per GRPO step"
}

plugin "runner" {
  kind = "trainer"
  source = "builtin:command"
  config = {
    metric_regex = "(?m)^combined_score=([0-9.eE+-]+)$"
  }
}

plugin "rl" {
  kind = "trainer"
  source = "builtin:command"
  config = {
    update_command = "python3 "
  }
}

plugin "openai" {
  kind = "llm"
  source = "builtin:openai"
  config = {
    base_url = "http://127.0.0.1:8000/v1"
  }
}

prices {
  preset = "cloud-2026"
}

environment "mls_lite" {
  family = "mixed"
  scale = 1
  trainer = plugin.runner
  suite = "suites/mls-bench-lite.json"
  suite_root = ""
  suite_exclude = ["rl-value-discrete"]

  metric {
    name = "combined_score"
    direction = "maximize"
  }

  run_cost {
    gpu = "H100"
    gpus = 1
    hours = 0.75
  }

  source {
    repairs = 0

    import {
    }
  }
}

role "proposer" {
  llm = plugin.openai
  model = "qwen3-8b-policy"
  temperature = 1
  concurrency = 64
  seconds = 10

  tokens {
    in = 4000
    out = 800
  }

  price {
    in = 0.05
    out = 0.2
  }
}

role "implementer" {
  llm = plugin.openai
  model = "gpt-5-mini"
  temperature = 0.2
  concurrency = 64
  seconds = 60

  tokens {
    in = 12000
    out = 4000
  }

  price {
    in = 0.25
    out = 2
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
    out = 2
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
    out = 0.2
  }
}

reward "improve" {
  source = "critic"
  predictor = critic.screen
  value = "label_score > 0 ? 1 : -1"
  infeasible = "-1"
}

critic "screen" {
  role = role.critic
  votes = 16
  labels = "3way"
  aggregate = "majority"
  tie = "route"
  threshold = 0.25
  expected_routed = 0.363
}

loop "policy" {
  preset = "critic-grpo"
  until_budget = true
  states = 16
  proposals_per_state = 16
  reward = reward.improve
  screen = critic.screen
  learning_rate = 0.000001

  update {
    trainer = plugin.rl
    gpu = "H100"
    gpus = 8
    hours = 0.25
  }
}

budget {
  real_runs = 10000
}

executor {
  kind = "local"
  concurrency = 16
  gpus = 16
}
