locals {
  a = local.b + 1 # ERROR: E_LOCAL_CYCLE local "a" depends on itself
  b = local.a + 1 # ERROR: E_LOCAL_CYCLE local "b" depends on itself
}

environment "a" {
  run_cost {
    hours = hours("90") # ERROR: E_EXPR Invalid function argument
    gpus  = nosuch(3)   # ERROR: E_EXPR Call to unknown function
  }
}
