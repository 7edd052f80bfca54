# Naive GRPO with real rewards: the cost LM2LM avoids (seed 000, section 1).
#
# Every sampled proposal is built and trained for real. One run is a
# 486M-parameter model on 8B tokens, about 45 B200 GPU-hours.
#
# Expected figures (assay estimate):
#   real runs  100 steps x 32 states x 8 proposals = 25,600
#   GPU-hours  25,600 x 45 = 1,152,000
#   dollars    1,152,000 x $14.00 = $16,128,000 of GPU time, plus LLM calls

name        = "lm2lm-verify-all"
description = "GRPO where every proposal's reward is a real training run"
seed        = 0

locals {
  run = { gpu = "B200", gpus = 8, hours = hours("5h37m30s") } # 45 GPU-hours

  # Reward scale tau_e by family: the gain that counts as a reward of 1.
  scale = { autoregressive = 0.01, diffusion = 0.02 }

  # baseline is b_e, the metric the unedited reference configuration reaches
  # on this token budget: illustrative figures, like the price table; replace
  # them with your own measurement. Declared, so no real run measures them.
  envs = [
    { name = "olmo3", family = "autoregressive", metric = "val_bpb", holdout = 2, baseline = 0.89 },
    { name = "qwen3", family = "autoregressive", metric = "val_bpb", holdout = 1, baseline = 0.87 },
    { name = "nanochat", family = "autoregressive", metric = "val_bpb", holdout = 1, baseline = 0.93 },
    { name = "marin", family = "autoregressive", metric = "val_bpb", holdout = 1, baseline = 0.88 },
    { name = "e2d2_sw", family = "diffusion", metric = "val_nll", holdout = 2, baseline = 2.94 },
    { name = "e2d2", family = "diffusion", metric = "val_nll", holdout = 1, baseline = 2.91 },
    { name = "mdm", family = "diffusion", metric = "val_nll", holdout = 1, baseline = 3.07 },
    { name = "bd3lm", family = "diffusion", metric = "val_nll", holdout = 1, baseline = 3.00 },
  ]
}

plugin "command" {
  kind   = "trainer"
  source = "builtin:command"
  # Each environment's codebase is behind one entry point that writes the
  # environment's metric (val_bpb or val_nll) to metrics.json as "metric".
  config = {
    command      = "./train.sh --env {{env}} --task {{task}} --config {{config}} --seed {{seed}} --out {{workdir}}/metrics.json"
    metric_file  = "{{workdir}}/metrics.json"
    metric_field = "metric"
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
  preset     = "cloud-2026"
  gpu_hourly = { B200 = 14.00 }
}

dynamic "environment" {
  for_each = local.envs
  labels   = [environment.value.name]
  content {
    family   = environment.value.family
    baseline = environment.value.baseline
    scale    = local.scale[environment.value.family]
    trainer  = plugin.command
    metric {
      name      = environment.value.metric
      direction = "minimize"
    }
    run_cost {
      gpu   = local.run.gpu
      gpus  = local.run.gpus
      hours = local.run.hours
    }
    tasks {
      train   = 5
      holdout = environment.value.holdout
    }
  }
}

role "proposer" {
  llm         = plugin.openai
  model       = "Qwen3.8-27B"
  temperature = 1.0
  concurrency = 64
  seconds     = 20
  tokens {
    in  = 6000
    out = 600
  }
  price {
    in  = 0.20
    out = 0.60
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
