variable "steps" { # ERROR: E_VAR_REQUIRED variable "steps" has no value
  type = number
}

variable "mode" {
  type = matrix # ERROR: E_ENUM unknown variable type "matrix"
}

variable "votes" {
  type    = number
  default = "many" # ERROR: E_VAR_TYPE default of variable "votes"
}

variable "n" {
  default = 3
  colour  = "red" # ERROR: E_UNKNOWN_FIELD unknown field "colour" in a variable block
}

loop "l" {
  steps = var.stpes # ERROR: E_EXPR Unsupported attribute
}
