# The critics paper's two-stage pair collection (its appendix C.2) at
# laptop scale: the pairs critic-train.hcl trains on and critic-untrained.hcl
# and critic-train.hcl bench on. Stage 1: on each of the 4 tasks, 10
# sequential evolution steps from the reference configuration (one island,
# one idea a step, built and trained for real by tinylm; a child replaces
# the parent only when it is better). Stage 2 (children_per_parent): each
# solution a step produced is the parent of 20 children, each proposed
# against it, built and trained for real, all 20 measured against the same
# parent. The pairs are then exported (docs/pairs.md), with task train-04
# held out:
#
#   assay run --id pairs specs/laptop/critic-pairs.hcl
#   assay export pairs pairs --holdout-tasks train-04 -o specs/laptop/data/critic-pairs.jsonl
#
# and critic-train.hcl drops the parents with fewer than three improving
# children (min_improving_children = 3), as the paper does.
#
# Expected figures (assay estimate):
#   real runs  4 baselines + 4 tasks x 10 steps x (1 + 20 children),
#              less the builds that fail (5% expected)
#   proposer, implementer calls  4 x 10 x (1 + 20) = 840 each, expected

extends = "common/preamble.hcl" # the laptop specs' shared trainer, LLM, prices and environment

name        = "laptop-critic-pairs"
description = "two-stage pair collection: 10 evolution steps per task, then 20 children of each step's solution"

# Labels need finished runs, not long ones.
plugin "tinylm" {
  config = { steps = 100 }
}

environment "tiny" {
  tasks {
    holdout = 0
  }
}

role "proposer" {
  temperature = 1
  tokens {
    in = 500
  }
}

role "implementer" {
  build_failures = { low = 0, expected = 0.05, high = 0.5 }
  llm            = plugin.offline
  concurrency    = 4
  seconds        = 0.001
  tokens {
    in  = 500
    out = 200
  }
  price {
    in  = 0
    out = 0
  }
}

loop "collect" {
  kind                    = "evolution"
  islands                 = 1
  rounds                  = 10
  verifications_per_round = 1
  select                  = "random"
  children_per_parent     = 20
}

budget {
  real_runs = 844
  usd       = 1
}
