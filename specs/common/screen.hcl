# The critics paper's screening settings in OpenEvolve (seed 002, table 2),
# less the critic's model: critic-evolve.hcl's loop (3 islands x 10
# rounds, 16 ideas a round, 16 critic votes on each, the best mean label
# rank verified: 30 verifications per task) with the critic answering as
# the paper's prompt asks (appendix E): a soft-rubric analysis under
# every criterion, then two tags,
#
#   [IMPROVEMENT] improve | lose | tie --- <one-sentence reason>
#   [WINTIER] big | medium | small | NA --- <one-sentence reason>
#
# read as the 5-way label by the pattern's two named groups. Each
# screen-*.hcl sets the critic's model and price; all of them share the
# proposer, implementer, summarizer, loop and verification budget, as the
# paper's settings do. openevolve.hcl is the None setting.
#
# A soft-rubric critique is long: each setting prices 1,200 tokens out, as
# the teacher's in critic-train.hcl, against critic-evolve.hcl's 200 for a
# JSON verdict.

extends = "../critic-evolve.hcl"

role "critic" {
  answer {
    format  = "pattern"
    pattern = "(?s)\\[IMPROVEMENT\\]\\s*(?P<improvement>\\w+).*?\\[WINTIER\\]\\s*(?P<tier>\\w+)"
    reasks  = 1
    verdict "BigWin" {
      groups = { improvement = "improve", tier = "big" }
    }
    verdict "MediumWin" {
      groups = { improvement = "improve", tier = "medium" }
    }
    verdict "SmallWin" {
      groups = { improvement = "improve", tier = "small" }
    }
    verdict "Tie" {
      groups = { improvement = "tie" }
    }
    verdict "Lose" {
      groups = { improvement = "lose" }
    }
  }
}
