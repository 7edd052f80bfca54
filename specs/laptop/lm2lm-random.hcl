# LM2LM at laptop scale: random instead of top-rated calibration, at the
# same real runs (lm2lm-calibration-random.hcl in miniature).
#
# Expected figures (assay estimate): as lm2lm-top-rated.hcl, 113 real runs.

extends = "lm2lm-top-rated.hcl"

name        = "laptop-lm2lm-random"
description = "LM2LM in miniature with random calibration"

calibration {
  select = "random"
}
