# Critic-in-loop GRPO, then the policy evaluated on MLS-Lite-Bench (seed 002).
#
# critic-grpo.hcl's training, unchanged (10,000 real verifications, about
# 36.3% of candidates routed), then each of the 29 scored tasks is evaluated
# by real runs: Avg@4 and Best@4 of the trained policy and of the Base
# policy (the proposer before training) on the same states. With
# critic-grpo-verify-all-eval.hcl this is the papers' screened-vs-verify-all
# comparison at an equal real-run budget for training.
#
# Expected figures (assay estimate):
#   training     as critic-grpo.hcl: at most 10,000 real runs, 107 steps
#   evaluation   29 tasks x 4 proposals x 2 arms = 232 real runs

extends = "critic-grpo.hcl"

name        = "critic-grpo-eval"
description = "critic-in-loop GRPO on 10,000 verifications, then the policy against Base on every task"

evaluation {
  split   = "train" # MLS-Lite-Bench has no holdout tasks: the papers evaluate on the same tasks
  avg_at  = 4
  best_at = 4
  base    = role.proposer
}

# Training keeps its 10,000 verifications; the evaluation adds its own.
budget {
  real_runs = 10232 # 10,000 + 232
}
