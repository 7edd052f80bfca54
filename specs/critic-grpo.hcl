# Critic-in-the-loop policy GRPO (seed 002).
#
# Each step, 16 parents x 16 rollouts = 256 candidate ideas. A 16-vote critic
# labels every candidate; confident verdicts (uncertainty below 0.25) are the
# reward, uncertain ones (about 36.3%) are routed to a real verification.
# Reward +1 for Improve, -1 otherwise. The loop runs until 10,000 real
# verifications are spent.
#
# Expected figures (assay estimate):
#   steps      expected 10,000 / (256 x 0.363) = 107; low 10,000 / 256 = 39
#              (every candidate routed); 2.75x more rewarded candidates per run
#   real runs  at most 10,000
#
# The benchmark, trainers, LLM endpoint, proposer, implementer, budget and
# executor are specs/common/critic-grpo.hcl's, which critic-grpo-verify-all.hcl
# extends too; this file adds the critic, the reward and the loop.
#
# validate, estimate and plan need nothing of yours; check and run need
# what specs/common/critic-grpo.hcl's header lists (your MLS-Bench
# checkout, the manifest's placeholders and the update step's path).

extends = "common/critic-grpo.hcl"

name        = "critic-grpo"
description = "policy GRPO whose rewards come from a critic, routing uncertain candidates to real runs"

# MLS-Bench-Lite's manifest (common/mls-bench-lite.hcl runs it).
environment "mls_lite" {
  suite = "suites/mls-bench-lite.json"
}

locals {
  votes     = 16
  threshold = 0.25 # u < 0.25: at most 3 of 16 votes disagree
}

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

critic "screen" {
  role            = role.critic
  votes           = local.votes
  labels          = "3way"
  aggregate       = "majority"
  tie             = "route"
  threshold       = local.threshold
  expected_routed = percent(36.3)
}

reward "improve" {
  source     = "critic"
  predictor  = critic.screen
  value      = "label_score > 0 ? 1 : -1"
  infeasible = "-1"
}

# The critic-grpo preset also sets new_parent = "all_improve" (a parent
# whose 16 children are all judged Improve hands over to one of them, at
# random); its repairs = 3 gives way to the suite's source, whose repairs
# are 0 (common/mls-bench-lite.hcl).
loop "policy" {
  preset              = "critic-grpo"
  until_budget        = true
  states              = 16 # parents
  proposals_per_state = 16 # rollouts per parent
  reward              = reward.improve
  learning_rate       = 1e-6
  screen              = critic.screen

  # One GRPO step on 256 candidates. The paper gives no training cost:
  # 8 H100 GPUs for 15 minutes a step is an assumption, priced as such.
  update {
    trainer = plugin.rl
    gpu     = "H100"
    gpus    = 8
    hours   = minutes(15)
  }
}
