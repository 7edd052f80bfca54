# LM2LM: research judgement learned by RL on a research world model (seed 000).
#
# A proposer policy is trained with DAPO on rewards predicted by a frozen
# research world model (RWM); the RWM is kept honest by on-policy calibration:
# after steps 16, 40 and 64 the policy's top-rated proposals are run for real
# and appended to the RWM's context.
#
# Expected figures (assay estimate):
#   environments 8 (4 autoregressive, 4 diffusion), tasks 40 train / 10 holdout
#   rollouts     96 steps / 8 = 12 refreshes x 256 states x 8 = 24,576 RWM calls
#   real runs    100 seed records + 31 + 35 + 34 calibration = 200
#   RL training  96 updates x 8 B200 x 1.49 h x $14/GPU-hour = $16.0k, the
#                paper's $56.1k total with RL training less its $40.1k of
#                data generation alone (seed 000's cost comparison)
# Evaluation on the holdout tasks is in lm2lm-eval.hcl.
#
# The environments, training command, LLM endpoint and proposer are
# specs/common/lm2lm.hcl's, which lm2lm-verify-all.hcl extends too.
#
# validate, estimate and plan need nothing of yours. check and run need
# the training program (-var lm2lm_train=PATH: specs/common/lm2lm.hcl's
# header says what it must do) and the policy update step, -var
# grpo_update=PATH: the absolute path of examples/trainer/grpo_update.py
# (TRL and PEFT: DAPO of the proposer's LoRA adapter on the step's batch,
# read from its ASSAY_* variables, docs/policy-training.md), run once per
# policy step in the update's own directory. Each is refused until given.
#
# To run the loop now, specs/laptop/code/lm2lm.hcl is its twin in
# miniature on code changes of examples/suite, with nothing to supply.

extends = "common/lm2lm.hcl"

name        = "lm2lm"
description = "DAPO on RWM-predicted gain with top-rated on-policy calibration"

variable "steps" {
  type        = number
  default     = 96
  description = "DAPO policy updates"
}

variable "calibration_budget" {
  type        = list(number)
  default     = [31, 35, 34]
  description = "real runs per calibration round (after steps 16, 40, 64)"
}

locals {
  # One real run: a 486M-parameter model on a short token budget.
  run = { gpu = "B200", gpus = 8, hours = hours("1h30m") }

  # b_e by environment, the metric the unedited reference configuration
  # reaches: illustrative figures, like the price table; replace them with
  # your own measurement. Seed 000 treats them as known, so no real run
  # measures them (remove one and the plan adds one baseline run per task
  # of that environment, counted in the estimate).
  baseline = {
    olmo3    = 0.98
    qwen3    = 0.96
    nanochat = 1.02
    marin    = 0.97
    e2d2_sw  = 3.21
    e2d2     = 3.18
    mdm      = 3.35
    bd3lm    = 3.27
  }
}

variable "grpo_update" {
  type        = string
  default     = ""
  supply      = "the absolute path of examples/trainer/grpo_update.py in your clone of Assay (TRL and PEFT; docs/policy-training.md), or of an update step of your own that reads the same ASSAY_* variables"
  description = "the policy update step, run as python3 PATH once per DAPO step"
}

# The proposer is trained after every DAPO step (see
# docs/policy-training.md): the update step writes a LoRA adapter from the
# step's batch, reading the job from its ASSAY_* variables, and the
# proposer's vLLM endpoint then serves it.
plugin "rl" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    update_command = "python3 ${var.grpo_update}"
  }
}

# Each environment of the base gets its baseline and run cost.
dynamic "environment" {
  for_each = local.baseline
  labels   = [environment.key]
  content {
    baseline = environment.value
    run_cost {
      gpu   = local.run.gpu
      gpus  = local.run.gpus
      hours = local.run.hours
    }
  }
}

role "rwm" {
  llm         = plugin.openai
  model       = "GPT-6-sol"
  temperature = 0.0
  concurrency = 32
  seconds     = 30
  tokens {
    in  = 60000 # the record context M
    out = 800
  }
  price {
    in  = 1.25
    out = 10.00
  }
}

role "builder" {
  llm         = plugin.openai
  model       = "GPT-6-astra"
  concurrency = 8
  seconds     = seconds("4m")
  tokens {
    in  = 30000
    out = 8000
  }
  price {
    in  = 1.25
    out = 10.00
  }
}

reward "rwm_gain" {
  source         = "predicted"
  predictor      = role.rwm
  normalize      = "scale"
  clip           = 6
  value          = "clip(predicted_gain / scale, -c, c) + diversity_bonus"
  repeat_penalty = 0.5
  infeasible     = "-c"
  diversity {
    by     = "mechanism"
    weight = 0.5
  }
}

loop "policy" {
  preset              = "dapo"
  steps               = var.steps
  rollout_every       = 8
  states              = 256
  proposals_per_state = 8
  reward              = reward.rwm_gain
  learning_rate       = 1e-6
  # Groups whose rewards are all equal are dropped (the dapo preset's
  # zero_variance = "drop") and, as in the paper, not refilled: every
  # refresh scores exactly 256 x 8 proposals (resample_rounds = 0).

  # RL training of the proposer: the paper's total with RL training is
  # $56.1k against $40.1k for data generation alone, so $16.0k over 96
  # updates, on 8 B200 GPUs at $14/GPU-hour: 16000 / (96 x 8 x 14) = 1.49 h.
  update {
    trainer = plugin.rl
    gpu     = "B200"
    gpus    = 8
    hours   = 16000 / (96 * 8 * 14)
    adapter = "lm2lm"
  }
}

records {
  seed_runs = 100
  select    = "random"
}

calibration {
  loop        = loop.policy
  after_steps = [16, 40, 64]
  budget      = var.calibration_budget
  select      = "top_rated"
}

budget {
  real_runs = 200
  usd       = 60000
}

executor {
  kind        = "slurm"
  concurrency = 8
  gpus        = 64
  slurm {
    partition  = "b200"
    time_limit = "4:00:00"
    array      = true
  }
}
