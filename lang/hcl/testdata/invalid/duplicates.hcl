budget {
  real_runs = 1
}

budget { # ERROR: E_DUPLICATE duplicate budget block
  real_runs = 2
}

role "rwm" {
}

role "rwm" { # ERROR: E_DUPLICATE duplicate role "rwm"
}

variable "steps" {
  default = 1
}

variable "steps" { # ERROR: E_DUPLICATE duplicate variable "steps"
  default = 2
}

locals {
  a = 1
}

locals {
  a = 2 # ERROR: E_DUPLICATE duplicate local "a"
}
