# A sweep over critic-grpo.hcl (seed 002): critic votes k x routing threshold T.
#
# critic-grpo.hcl as it is (16 parents x 16 rollouts = 256 candidates a step,
# a critic screen routing uncertain candidates to real runs, 10,000 real
# verifications), swept over the critic's votes and threshold.
#
# A grid of 4 x 2 = 8 variants; each is critic-grpo with its own k and T and
# the same 10,000-run budget. Run `assay estimate` to compare them.
#
# Expected figures (assay estimate), per variant:
#   critic calls per step  256 x k (k = 4, 8, 16, 32)
#   real runs              at most 10,000
#   (expected_routed stays 0.363 here; measure it per T to sharpen the steps)

extends = "critic-grpo.hcl"

name        = "critic-sweep"
description = "how critic votes and the routing threshold trade LLM cost against real runs"

sweep {
  mode = "grid"
  axis "critic.screen.votes" {
    values = [4, 8, 16, 32]
  }
  axis "critic.screen.threshold" {
    values = [0.125, 0.25]
  }
}
