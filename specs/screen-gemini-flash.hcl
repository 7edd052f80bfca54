# Screening setting "Gemini-3.5-Flash" of the critics paper (seed 002,
# table 2): OpenEvolve on MLS-Lite-Bench where Gemini-3.5-Flash, prompted
# as the critic, judges each of the 16 ideas of an island-round 16 times,
# and the idea with the best mean label rank is the round's one
# verification. common/screen.hcl holds what every setting shares (the
# loop, the budget, the two-tag answer); this file the critic's model and
# price.
#
# Its price is an assumption (the paper quotes none); put your provider's
# in. The openai plugin's base_url must serve the model: an OpenAI-
# compatible endpoint.
#
# Expected figures (assay estimate):
#   real runs     29 tasks x 3 islands x 10 rounds x 1 verification = 870
#   critic calls  29 x 30 island-rounds x 16 ideas x 16 votes = 222,720
#   critic tokens 222,720 x (3,000 in + 1,200 out), at most twice that
#                 with the answer's one reask

extends = "common/screen.hcl"

name        = "screen-gemini-flash"
description = "OpenEvolve screened by Gemini-3.5-Flash (the Gemini-3.5-Flash setting), 30 verifications per task"

role "critic" {
  model       = "gemini-3.5-flash"
  temperature = 0.7
  concurrency = 64
  seconds     = 10
  tokens {
    in  = 3000
    out = 1200
  }
  price {
    in  = 0.30
    out = 2.50
  }
}
