environment "a" {
  trainer   = plugin                # ERROR: E_REF_SYNTAX trainer must be a reference written kind.name
  benchmark = plugin.a.b            # ERROR: E_REF_SYNTAX benchmark must be a reference written kind.name
}

reward "r" {
  predictor = "role"                # ERROR: E_REF_SYNTAX predictor must be a reference
}

critic "c" {
  role = 3                          # ERROR: E_REF_SYNTAX role must be a reference
}

loop "l" {
  reward = "reward.r"
  screen = critic.c
}
