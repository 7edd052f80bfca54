# LM2LM with evaluation as seed 000 reports it: lm2lm.hcl, then real runs on
# holdout states.
#
# The training is lm2lm.hcl's, unchanged: DAPO on RWM-predicted gain with
# top-rated on-policy calibration after steps 16, 40 and 64. Then 3 states of
# each of the 10 holdout tasks (15 per family) are evaluated by real runs:
# Avg@4 and Best@4 of gain over tau_e, per family, for three arms on the same
# states: the trained policy, the Base policy (the proposer before training:
# zero-shot) and Base-ICL (the untrained proposer with 200 real records in
# its prompt). The report gives the share of states where the policy beats
# Base, and the world model's within-state rank accuracy, advantage cosine
# and predicted-real gap on the evaluated proposals (predicted before their
# runs, never in its context).
#
# Expected figures (assay estimate):
#   rollouts     as lm2lm.hcl: 12 refreshes x 256 states x 8 = 24,576 RWM calls
#   real runs    100 seed records + 31 + 35 + 34 calibration = 200
#   evaluation   10 tasks x 3 states x 4 proposals x 3 arms = 360 real runs
#                (560 in all) and 360 RWM predictions

extends = "lm2lm.hcl"

name        = "lm2lm-eval"
description = "LM2LM training, then Avg@4 and Best@4 of real gain on holdout states against Base and Base-ICL"

# Base-ICL: the same model, untrained, its prompt holding 200 records.
role "proposer_icl" {
  kind        = "proposer"
  llm         = plugin.openai
  model       = "Qwen3.8-27B"
  temperature = 1.0
  concurrency = 64
  seconds     = 40
  tokens {
    in  = 66000 # 200 records of about 300 tokens, and the task
    out = 600
  }
  price {
    in  = 0.20
    out = 0.60
  }
}

# With two proposers, each block names the one it calls.
loop "policy" {
  proposer = role.proposer
}

records {
  proposer = role.proposer
}

evaluation {
  split       = "holdout"
  states      = 3
  avg_at      = 4
  best_at     = 4
  normalize   = "scale"
  proposer    = role.proposer
  base        = role.proposer
  icl         = role.proposer_icl
  icl_records = 200
  predictor   = role.rwm
}

# The 360 evaluation runs need room in lm2lm.hcl's caps.
budget {
  real_runs = 560
  usd       = 125000
}
