budget {
  real_runs = = 3 # ERROR: E_SYNTAX Invalid expression
}
