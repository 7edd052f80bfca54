# Calibration ablation of seed 000: random instead of top-rated calibration.
#
# lm2lm-eval.hcl with one change: each calibration round runs proposals of
# the current policy drawn at random rather than the ones the world model
# rates highest. The same 200 real runs (100 seed records + 100 calibration),
# the same evaluation. Seed 000 reports Avg@4 17.06 for top-rated and 10.84
# for random calibration (autoregressive).
#
# Expected figures (assay estimate): as lm2lm-eval.hcl, 560 real runs.

extends = "lm2lm-eval.hcl"

name        = "lm2lm-calibration-random"
description = "LM2LM with random instead of top-rated calibration, at the same 200 real runs"

calibration {
  select = "random"
}
