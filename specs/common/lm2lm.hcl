# The shared body of lm2lm.hcl and lm2lm-verify-all.hcl (seed 000): the 8
# environments (4 autoregressive, 4 diffusion; 5 train tasks each, 10
# holdout tasks in all), their metrics and reward scales, the training
# command, the LLM endpoint and the proposer. Each spec that extends it
# gives every environment its baseline and the cost of one real run (the
# two specs train on different token budgets), and adds its builder, reward
# and loop. Not a spec to run alone.
#
# validate, estimate and plan need nothing of yours. check and run need
# the training program, -var lm2lm_train=PATH (refused until given):
#   PATH  one entry point to every environment's codebase (the paper's 8
#       codebases are not in this repository), run once per real run as
#       `PATH --env E --task T --config FILE --seed N --out OUT` in the
#       run's own working directory, so give its absolute path (or add
#       repo and revision to plugin "command"'s config, docs/plugins.md,
#       so each run starts in a checkout of your repository). It trains
#       task T of environment E with the proposal's edits (FILE,
#       overrides.json), writes {"metric": X} to OUT (E's val_bpb or
#       val_nll; lower is better) and exits 0; any other status is a
#       failed run.
# specs/laptop/code/lm2lm.hcl is this loop on code changes of a suite
# that is in this repository, and runs as it is.
# docs/real-path.md takes a repository and LLM server of your own to a
# running spec, step by step.

seed = 0

variable "lm2lm_train" {
  type        = string
  default     = ""
  supply      = "the absolute path of your training entry point: one program for every environment's codebase, run as PATH --env E --task T --config FILE --seed N --out OUT (specs/common/lm2lm.hcl's header says what it must do)"
  description = "the program each real run starts"
}

locals {
  # Reward scale tau_e by family: the gain that counts as a reward of 1.
  scale = { autoregressive = 0.01, diffusion = 0.02 }

  # Environments in order, with family, metric and holdout tasks.
  envs = [
    { name = "olmo3", family = "autoregressive", metric = "val_bpb", holdout = 2 },
    { name = "qwen3", family = "autoregressive", metric = "val_bpb", holdout = 1 },
    { name = "nanochat", family = "autoregressive", metric = "val_bpb", holdout = 1 },
    { name = "marin", family = "autoregressive", metric = "val_bpb", holdout = 1 },
    { name = "e2d2_sw", family = "diffusion", metric = "val_nll", holdout = 2 },
    { name = "e2d2", family = "diffusion", metric = "val_nll", holdout = 1 },
    { name = "mdm", family = "diffusion", metric = "val_nll", holdout = 1 },
    { name = "bd3lm", family = "diffusion", metric = "val_nll", holdout = 1 },
  ]
}

plugin "command" {
  kind   = "trainer"
  source = "builtin:command"
  # Each environment's codebase is behind one entry point that writes the
  # environment's metric (val_bpb or val_nll) to metrics.json as "metric".
  config = {
    command      = "${var.lm2lm_train} --env {{env}} --task {{task}} --config {{config}} --seed {{seed}} --out {{workdir}}/metrics.json"
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
    family  = environment.value.family
    scale   = local.scale[environment.value.family]
    trainer = plugin.command
    metric {
      name      = environment.value.metric
      direction = "minimize"
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
