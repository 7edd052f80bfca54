# LM2LM at laptop scale: no calibration, a frozen world model
# (lm2lm-calibration-none.hcl in miniature). The 18 calibration runs become
# random seed records run before training; no round runs.
#
# Expected figures (assay estimate): as lm2lm-top-rated.hcl, 113 real runs.

extends = "lm2lm-top-rated.hcl"

name        = "laptop-lm2lm-frozen"
description = "LM2LM in miniature with a frozen world model: 34 random seed records, no calibration"

records {
  seed_runs = 34
}

calibration {
  budget = [0]
}
