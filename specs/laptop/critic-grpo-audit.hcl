# critic-grpo.hcl with an audit: half of the candidates the screen does not
# route (the floor of 0.5 x each batch's unrouted ones, chosen by the seed)
# are verified by real runs anyway, so the critic's error recall is
# measured on them rather than 1 by construction.
#
# Expected figures (assay estimate):
#   training     at most 48 real runs, fewer steps than critic-grpo.hcl
#                (the audits spend training runs)
#   real runs    at most 103, as critic-grpo.hcl

extends = "critic-grpo.hcl"

name        = "laptop-critic-grpo-audit"
description = "critic-grpo.hcl, with half of the unrouted candidates verified to measure error recall"

loop "policy" {
  audit_share = 0.5
}
