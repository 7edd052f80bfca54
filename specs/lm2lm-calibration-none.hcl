# Calibration ablation of seed 000: no calibration, a frozen world model.
#
# lm2lm-eval.hcl, but the 100 calibration runs become random seed records
# run before training (seed_runs 200), and no calibration round runs (budget
# 0 each): the world model keeps the context it starts with while the policy
# trains against it. The same 200 real runs, the same evaluation; its world
# model figures on the evaluated proposals are the frozen world model's.
# Seed 000 reports Avg@4 14.76 for random records against 17.06 for
# top-rated calibration, and a frozen world model's advantage cosine falling
# to -0.42 and rank accuracy to 0.37 by step 128.
#
# Expected figures (assay estimate): as lm2lm-eval.hcl, 560 real runs.

extends = "lm2lm-eval.hcl"

name        = "lm2lm-calibration-none"
description = "LM2LM with a frozen world model: 200 random seed records and no calibration"

records {
  seed_runs = 200
}

calibration {
  budget = [0]
}
