# Critic-only rewards (seed 002, appendix J.2): GRPO whose every reward is a
# frozen critic's majority verdict, with no real verification in training.
#
# critic-grpo-verify-all-eval.hcl with the reward replaced: each candidate is
# implemented, summarised and labelled by k = 1 critic vote (+1 for Improve,
# -1 otherwise) for 40 steps, and nothing is run for real until the
# evaluation. critic-only-k.hcl sweeps k over 4, 8, 16 and 32; seed 002
# reports gains from more votes that saturate past 16.
#
# The policy is trained after every step by the update block it extends
# (8 H100 GPUs for 15 minutes an update, as in critic-grpo.hcl).
#
# Expected figures (assay estimate):
#   training     40 steps x 256 candidates, k critic calls each, no real run
#   updates      40, 40 x 8 x 0.25 = 80 GPU-hours
#   evaluation   29 tasks x 4 proposals x 2 arms = 232 real runs

extends = "critic-grpo-verify-all-eval.hcl"

name        = "critic-only"
description = "GRPO on a frozen critic's k-vote verdicts alone, 40 steps, then the policy against Base"

role "summarizer" {
  llm         = plugin.openai
  model       = "gpt-5-mini"
  temperature = 0.4
  concurrency = 64
  seconds     = 10
  tokens {
    in  = 6000
    out = 400
  }
  price {
    in  = 0.25
    out = 2.00
  }
}

role "critic" {
  llm         = plugin.openai
  model       = "qwen3-8b-critic"
  temperature = 0.7
  concurrency = 256
  seconds     = 3
  tokens {
    in  = 3000
    out = 200
  }
  price {
    in  = 0.05
    out = 0.20
  }
}

critic "label" {
  role      = role.critic
  votes     = 1
  labels    = "3way"
  aggregate = "majority"
}

reward "improve" {
  source    = "critic"
  predictor = critic.label
  value     = "label_score > 0 ? 1 : -1"
}

loop "policy" {
  until_budget = false
  steps        = 40
}
