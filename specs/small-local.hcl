# A tiny local experiment to start from: a few minutes on a laptop CPU.
#
#   go run ./cmd/assay run specs/small-local.hcl
#
# A small language model is trained by the built-in tinylm trainer; the
# proposer, world model and builder are the built-in offline LLM, so nothing
# leaves the machine and nothing is billed. The shape is LM2LM's in miniature:
# seed records, an RL loop on predicted gain, one calibration round, then an
# evaluation on the holdout task. The proposals edit tinylm's knobs (width,
# depth, learning rate, ...); the plugin's config sets only how long a run
# trains and on which corpus.
#
# Expected figures (assay estimate):
#   real runs  3 baselines + 4 seed + 2 calibration + 1 holdout task x 2 = 11
#   rwm calls  4 steps x 2 states x 4 proposals = 32
# No baseline is declared, so one real run of the unedited setup measures
# each task's (2 train + 1 holdout): the baselines phase of the estimate.

extends = "common/lm2lm-mini.hcl"

name        = "small-local"
description = "LM2LM in miniature, on the local CPU with offline models"

variable "train_steps" {
  type        = number
  default     = 2000
  description = "tinylm optimiser steps per real run"
}

plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
  config = { steps = var.train_steps, corpus = "grammar" }
}

environment "tiny" {
  trainer = plugin.tinylm
  run_cost {
    gpu  = "CPU" # priced by the cloud-2026 preset
    gpus = 1
  }
}

executor {
  kind = "local"
}
