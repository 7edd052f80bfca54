# LM2LM with holdout evaluation (seed 000): lm2lm.hcl plus Avg@4 / Best@4.
#
# The training is lm2lm.hcl's, unchanged: DAPO on RWM-predicted gain with
# top-rated on-policy calibration after steps 16, 40 and 64. Then every
# holdout task is evaluated by real runs: the mean (Avg@4) and the best
# (Best@4) real gain over 4 proposals of the trained policy.
#
# Expected figures (assay estimate):
#   rollouts     as lm2lm.hcl: 12 refreshes x 256 states x 8 = 24,576 RWM calls
#   real runs    100 seed records + 31 + 35 + 34 calibration = 200
#   evaluation   Avg@4 / Best@4 on the 10 holdout tasks = 40 real runs (240 in all)

extends = "lm2lm.hcl"

name        = "lm2lm-eval"
description = "LM2LM training, then Avg@4 and Best@4 of real gain on the holdout tasks"

evaluation {
  split   = "holdout"
  avg_at  = 4
  best_at = 4
}

# The 40 evaluation runs need room in lm2lm.hcl's caps.
budget {
  real_runs = 240
  usd       = 70000
}
