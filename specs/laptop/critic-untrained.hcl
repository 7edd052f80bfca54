# The untrained critic of critic-train.hcl, benched as critic-train.hcl
# benches its trained one: the baseline of the critic training table of
# docs/reproducing.md. The same offline critic role (temperature 0.7) and
# 3-way critic as critic-train.hcl's screen, with no teacher and no SFT or
# GRPO, judges the first 96 held-out pairs of data/critic-pairs.jsonl
# whose parent has at least 3 improving children (task train-04: 26
# improve, 70 lose), the pairs no training step sees, at k 1 and 8;
# critic-train.hcl's critic_eval "bench" judges them after its critic
# training.
#
# Expected figures (assay estimate):
#   critic calls 96 pairs x 8 votes = 768
#   real runs    0

name        = "laptop-critic-untrained"
description = "the untrained offline critic on critic-train.hcl's held-out pairs, k = 1 and 8"
seed        = 1

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

# critic-evolve.hcl's critic role, which critic-train.hcl trains.
role "critic" {
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 20
  }
  price {
    in  = 0
    out = 0
  }
}

# critic-train.hcl's screen: critic-evolve.hcl's, in 3-way labels.
critic "screen" {
  role      = role.critic
  votes     = 8
  labels    = "3way"
  aggregate = "mean_rank"
  tie       = "route"
  threshold = 0.25
}

critic_eval "bench" {
  data                   = "data/critic-pairs.jsonl"
  split                  = "holdout"
  min_improving_children = 3
  limit                  = 96 # of the held-out pairs of train-04
  k                      = [1, 8]
}

budget {
  usd = 1
}
