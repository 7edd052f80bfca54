# Naive GRPO with real rewards: the cost LM2LM avoids (seed 000, section 1).
#
# Every sampled proposal is built and trained for real. One run is a
# 486M-parameter model on 8B tokens, about 45 B200 GPU-hours.
#
# Expected figures (assay estimate):
#   real runs  100 steps x 32 states x 8 proposals = 25,600
#   GPU-hours  25,600 x 45 = 1,152,000
#   dollars    1,152,000 x $14.00 = $16,128,000 of GPU time, plus LLM calls
#
# The environments, training command, LLM endpoint and proposer are
# specs/common/lm2lm.hcl's, shared with lm2lm.hcl.
#
# validate, estimate and plan need nothing of yours; check and run need
# the training program, -var lm2lm_train=PATH (specs/common/lm2lm.hcl's
# header says what it must do).

extends = "common/lm2lm.hcl"

name        = "lm2lm-verify-all"
description = "GRPO where every proposal's reward is a real training run"

locals {
  run = { gpu = "B200", gpus = 8, hours = hours("5h37m30s") } # 45 GPU-hours

  # b_e by environment, the metric the unedited reference configuration
  # reaches on this token budget: illustrative figures, like the price
  # table; replace them with your own measurement. Declared, so no real run
  # measures them.
  baseline = {
    olmo3    = 0.89
    qwen3    = 0.87
    nanochat = 0.93
    marin    = 0.88
    e2d2_sw  = 2.94
    e2d2     = 2.91
    mdm      = 3.07
    bd3lm    = 3.00
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

role "builder" {
  llm         = plugin.openai
  model       = "GPT-6-astra"
  concurrency = 64
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

reward "real_gain" {
  source         = "real"
  normalize      = "scale"
  clip           = 6
  value          = "clip(gain / scale, -c, c)"
  repeat_penalty = 0.5
  infeasible     = "-c"
}

loop "policy" {
  preset              = "grpo"
  steps               = 100
  states              = 32
  proposals_per_state = 8
  reward              = reward.real_gain
  learning_rate       = 1e-6
}

executor {
  kind        = "slurm"
  concurrency = 256
  gpus        = 2048
  slurm {
    partition  = "b200"
    time_limit = "8:00:00"
    array      = true
  }
}
