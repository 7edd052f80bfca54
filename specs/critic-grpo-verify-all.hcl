# Policy GRPO with verify-all rewards: the baseline of critic-grpo.hcl (seed 002).
#
# Each step, 16 parents x 16 rollouts = 256 candidate ideas, and every one is
# implemented and verified by a real run. Reward +1 for Improve, -1 otherwise.
# The loop runs until 10,000 real verifications are spent.
#
# The proposer is trained after every step as in critic-grpo.hcl (the same
# update block and cost), so the comparison is trained against trained.
#
# Expected figures (assay estimate):
#   steps      10,000 / 256 = 39
#   real runs  39 x 256 = 9,984
#   updates    39, each 8 H100 GPUs x 15 minutes = 2 GPU-hours
#
# Everything but the reward and the loop is specs/common/critic-grpo.hcl's,
# shared with critic-grpo.hcl.
#
# validate, estimate and plan need nothing of yours; check and run need
# what specs/common/critic-grpo.hcl's header lists (your MLS-Bench
# checkout, the manifest's placeholders and the update step's path).

extends = "common/critic-grpo.hcl"

name        = "critic-grpo-verify-all"
description = "policy GRPO whose every candidate is verified by a real run"

# MLS-Bench-Lite's manifest (common/mls-bench-lite.hcl runs it).
environment "mls_lite" {
  suite = "suites/mls-bench-lite.json"
}

reward "improve" {
  source     = "real"
  value      = "gain > 0 ? 1 : -1"
  infeasible = "-1"
}

loop "policy" {
  preset              = "grpo"
  until_budget        = true
  states              = 16 # parents
  proposals_per_state = 16 # rollouts per parent
  reward              = reward.improve
  learning_rate       = 1e-6
  # As the critic-in-loop run: a parent whose 16 children all improve on it
  # hands over to one of them (a failed build is not repaired in either:
  # common/mls-bench-lite.hcl's source).
  new_parent = "all_improve"

  # One GRPO step on 256 candidates, priced as critic-grpo.hcl's: 8 H100
  # GPUs for 15 minutes a step, an assumption (the paper gives no training
  # cost).
  update {
    trainer = plugin.rl
    gpu     = "H100"
    gpus    = 8
    hours   = minutes(15)
  }
}
