seed = true # ERROR: E_TYPE seed must be a whole number, got true

critic "screen" {
  votes     = 8.5    # ERROR: E_TYPE votes must be a whole number, got 8.5
  labels    = "4way" # ERROR: E_ENUM labels must be one of "3way", "5way"
  threshold = "low"  # ERROR: E_TYPE threshold must be a number, got the string "low"

  expected_routed = { low = 0.1, expected = 0.3 } # ERROR: E_TYPE expected_routed must be a number or { low, expected, high }; high is missing
}

role "builder" {
  build_failures = { low = 0, expected = 0.1, hi = 1 } # ERROR: E_TYPE build_failures must be a number or { low, expected, high }; "hi" is not one of these keys
  tokens {
    in  = "many"                                        # ERROR: E_TYPE in must be a number, or { low = .., expected = .., high = .. }
    out = { low = 1, expected = "ten", high = 20 }     # ERROR: E_TYPE out must be a number or { low, expected, high }; expected is not a number
  }
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
