nmae = "typo" # ERROR: E_UNKNOWN_FIELD unknown field "nmae" in the top level

critic "screen" {
  vots = 16 # ERROR: E_UNKNOWN_FIELD unknown field "vots" in a critic block
}

critc "screen" { # ERROR: E_UNKNOWN_FIELD unknown field "critc"
}

budget {
  real_run = 200 # ERROR: E_UNKNOWN_FIELD unknown field "real_run"
}

environment "a" {
  metric = "val_bpb" # ERROR: E_UNKNOWN_FIELD metric is a block, not an attribute
  family {           # ERROR: E_UNKNOWN_FIELD family is an attribute, not a block
  }
}

critic "c" {
  routed_range = [0.2, 1] # ERROR: E_UNKNOWN_FIELD unknown field "routed_range" in a critic block
}
