# Static evaluation of the offline critic at laptop scale (the critics
# paper's ML-Idea-Critic-Bench in miniature): the critic judges labelled
# parent/child pairs and is scored against their execution labels, with no
# real run. The pairs are data/quickstart-critic-pairs.jsonl, exported
# from a laptop run of the critic quickstart:
#
#   assay run --id demo --set loop.evolve.verifications_per_round=4 \
#     --set loop.evolve.rounds=2 --set budget.real_runs=40 specs/quickstart-critic.hcl
#   assay export pairs demo --holdout-fraction 0.5 --seed 1 \
#     -o specs/laptop/data/quickstart-critic-pairs.jsonl
#
# 32 pairs: 7 improve and 25 lose. The 16 of train-02 (the children of
# its reference configuration, the one parent with three improving
# children) have a 5-way label; train-01, the held-out task, has none, so
# every pair is judged. The same critic role votes in two label spaces, side by
# side in assay report and assay compare.
#
# Expected figures (assay estimate):
#   critic calls 32 pairs x (8 + 8) votes = 512
#   real runs    0

name        = "laptop-critic-static"
description = "the offline critic on labelled pairs: 3-way and 5-way, k = 1, 4, 8"
seed        = 1

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

role "critic" {
  llm         = plugin.offline
  temperature = 0.7
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = 800
    out = 40
  }
  price {
    in  = 0
    out = 0
  }
}

critic "three" {
  role      = role.critic
  votes     = 8
  labels    = "3way"
  aggregate = "majority"
  tie       = "lose"
}

critic "ladder" {
  role      = role.critic
  votes     = 8
  labels    = "5way"
  aggregate = "majority"
  tie       = "lose"
}

critic_eval "bench" {
  data       = "data/quickstart-critic-pairs.jsonl"
  split      = "all"
  limit      = 32 # every pair: wc -l data/quickstart-critic-pairs.jsonl
  critics    = ["three", "ladder"]
  k          = [1, 4, 8]
  thresholds = [0.1, 0.25, 0.5]
}

budget {
  usd = 1
}
