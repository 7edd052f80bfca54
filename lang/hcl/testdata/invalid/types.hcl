seed = true # ERROR: E_TYPE seed must be a whole number, got true

critic "screen" {
  votes     = 8.5    # ERROR: E_TYPE votes must be a whole number, got 8.5
  labels    = "4way" # ERROR: E_ENUM labels must be one of "3way", "5way"
  threshold = "low"  # ERROR: E_TYPE threshold must be a number, got the string "low"
}

environment "a" {
  family = 3 # ERROR: E_TYPE family must be a string
  metric {
    direction = "down" # ERROR: E_ENUM direction must be one of "minimize", "maximize"
  }
}

prices {
  gpu_hourly = { H100 = "cheap" } # ERROR: E_TYPE gpu_hourly must be a map of numbers; H100 is the string "cheap"
}

calibration {
  after_steps = [16, 40.5] # ERROR: E_TYPE after_steps must be a list of whole numbers
  budget      = "lots"     # ERROR: E_TYPE budget must be a list of numbers
}

loop "l" {
  until_budget = "yes" # ERROR: E_TYPE until_budget must be true or false
}

plugin "p" {
  config = 3 # ERROR: E_TYPE config must be an object
}

sweep {
  axis "critic.screen.votes" {
    values = [4, { a = 1 }] # ERROR: E_TYPE values must hold numbers, strings or bools
  }
}
