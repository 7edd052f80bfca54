# specs/lm2lm.hcl with the last calibration round dropped: what a pull
# request that saves 34 real runs looks like to a reviewer.
extends = "../../../specs/lm2lm.hcl"

calibration {
  after_steps = [16, 40]
  budget      = [31, 35]
}
