# The papers' loop mechanics: each marked line is refused (or warned) where
# it does not apply.
plugin "tinylm" {
  kind   = "trainer"
  source = "builtin:tinylm"
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { B200 = 14.0 }
}

environment "olmo3" {
  trainer  = plugin.tinylm
  baseline = 0.98
  scale    = 0.01
  metric {
    name      = "val_bpb"
    direction = "minimize"
  }
  run_cost {
    gpu   = "B200"
    gpus  = 8
    hours = 1.5
  }
  tasks {
    train   = 4
    holdout = 1
  }
}

role "proposer" { # ERROR: W_LLM_UNPRICED no tokens or price
  llm = plugin.offline
}

role "rwm" { # ERROR: W_LLM_UNPRICED no tokens or price
  llm = plugin.offline
}

role "summarizer" { # ERROR: W_LLM_UNPRICED no tokens or price
  llm = plugin.offline
}

role "judge" { # ERROR: W_LLM_UNPRICED no tokens or price
  kind = "critic"
  llm  = plugin.offline
}

reward "rwm_gain" {
  source     = "predicted"
  clip       = 6
  value      = "clip(predicted_gain / scale, -c, c)"
  infeasible = "-c"
}

critic "rank" {
  role      = role.judge
  votes           = 4
  labels          = "5way"
  aggregate       = "mean_rank"
  tie             = "lose"
  threshold       = 0.25
  expected_routed = 0.3
}

loop "policy" {
  kind                = "rl"
  algorithm           = "dapo"
  steps               = 24
  rollout_every       = 8
  states              = 4
  proposals_per_state = 4
  reward              = reward.rwm_gain
  learning_rate       = 1e-6
  new_parent          = "all_improve" # ERROR: E_NOT_APPLICABLE world model's prediction
  repairs             = 3 # ERROR: E_NOT_APPLICABLE builds nothing
}

loop "evolve" {
  preset           = "openevolve"
  islands          = 3
  rounds           = 4
  migration_every  = 2
  migration_rate   = 1.5 # ERROR: E_RANGE migration_rate must lie in (0, 1]
  ideas_per_round  = 4
  screen           = critic.rank
  verify_routed    = true
  feature_bins     = { complexity = 4, colour = 3 } # ERROR: E_ENUM no feature dimension
}

loop "plain" {
  kind                    = "evolution"
  islands                 = 2
  rounds                  = 4
  ideas_per_round         = 4 # ERROR: E_NOT_APPLICABLE no screen to choose among ideas
  verifications_per_round = 1
  diverse_programs        = 2 # ERROR: E_NOT_APPLICABLE no MAP-Elites archive
  verify_routed           = true # ERROR: E_NOT_APPLICABLE no screen critic that routes
}

calibration {
  loop        = loop.policy
  after_steps = [8, 12] # ERROR: W_CALIBRATION_MID_ROLLOUT between rollout refreshes
  budget      = [2]
}

budget {
  real_runs = 100
}
