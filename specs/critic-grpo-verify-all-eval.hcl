# Verify-all GRPO, then the policy evaluated on MLS-Lite-Bench (seed 002).
#
# critic-grpo-verify-all.hcl's training, unchanged (every candidate verified,
# 10,000 real verifications in 39 steps), then the evaluation of
# critic-grpo-eval.hcl: Avg@4 and Best@4 of the trained policy and of the
# Base policy on every task. Seed 002 reports a domain average of 19.57
# (verify-all) against 25.21 (critic-in-loop) for Qwen-3.5-9B, Base 18.75.
#
# Expected figures (assay estimate):
#   training     39 steps x 256 = 9,984 real runs
#   evaluation   29 tasks x 4 proposals x 2 arms = 232 real runs

extends = "critic-grpo-verify-all.hcl"

name        = "critic-grpo-verify-all-eval"
description = "verify-all GRPO on 10,000 verifications, then the policy against Base on every task"

evaluation {
  split   = "train" # MLS-Lite-Bench has no holdout tasks: the papers evaluate on the same tasks
  avg_at  = 4
  best_at = 4
  base    = role.proposer
}

budget {
  real_runs = 10232 # 10,000 + 232
}
