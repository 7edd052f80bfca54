# Screening setting "Critic-9B" of the critics paper (seed 002, table 2):
# OpenEvolve on MLS-Lite-Bench where the trained 9B critic (SFT + GRPO)
# judges each of the 16 ideas of an island-round 16 times, and the idea
# with the best mean label rank is the round's one verification.
# common/screen.hcl holds what every setting shares (the loop, the budget,
# the two-tag answer); this file the critic's model and price.
#
# critic-evolve.hcl is the same setting with a JSON verdict; this one
# answers in the paper's two tags, as the other settings here do. The
# critic is the adapter critic-train.hcl trains, served under this name.
#
# Expected figures (assay estimate):
#   real runs     29 tasks x 3 islands x 10 rounds x 1 verification = 870
#   critic calls  29 x 30 island-rounds x 16 ideas x 16 votes = 222,720
#   critic tokens 222,720 x (3,000 in + 1,200 out), at most twice that
#                 with the answer's one reask

extends = "common/screen.hcl"

name        = "screen-critic-9b"
description = "OpenEvolve screened by the trained 9B critic (the Critic-9B setting), 30 verifications per task"

role "critic" {
  model       = "qwen3.5-9b-critic"
  temperature = 0.7
  concurrency = 256
  seconds     = 3
  tokens {
    in  = 3000
    out = 1200
  }
  price {
    in  = 0.05
    out = 0.20
  }
}
