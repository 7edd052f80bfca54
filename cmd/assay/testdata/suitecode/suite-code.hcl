# The example task suite in source mode: laptop-suite
# (specs/laptop/suite.hcl) with a source block added to its environment,
# so each task's scaffold (from suite.json: the repository, its revision
# and the editable train.go and model.go) is its seed program. The built-in
# offline LLM's ideas name a setting of train.go or model.go and its new
# value, and it writes each candidate as a unified diff that sets it; Assay applies it in a git worktree of the repository, runs
# `go vet .` there, commits it under refs/assay/<run-id>/, and the command
# trainer runs the task's evaluation command (go run -trimpath . -task NAME) in a
# checkout of that commit. refs/assay/<run-id>/best/<task> is the best
# program of each task.
#
# The repository is the variable `suite`, an absolute path (a relative one
# is read from this file's directory): a directory `assay example suite`
# wrote, a git repository of the example.
#
#   assay example suite /tmp/my-suite
#   assay run -var suite=/tmp/my-suite cmd/assay/testdata/suitecode/suite-code.hcl
#
# This spec lives here, not in specs/, because it cannot validate without
# that repository, and every spec in specs/ validates from a clean clone.
# cmd/assay/testdata/script/suite_code.txtar and internal/contract's
# TestSuiteCodeSpecRunsWithinItsEstimate run it.
#
# Expected figures (assay estimate): as laptop-suite, 16 real runs at
# most; each candidate is one builder call and up to 2 repairs.

extends = "../../../../specs/laptop/suite.hcl"

name        = "laptop-suite-code"
description = "GRPO on the example task suite with code changes: patches of train.go and model.go, built and committed in git worktrees"

variable "suite" {
  type        = string
  description = "the example suite's git repository, as assay example suite writes it"
}

# In source mode a candidate runs exactly its commit: laptop-suite's
# trainer keeps its metric and environment, and drops its knobs and its
# overrides file (null unsets what a spec extends). Each task's
# evaluation command runs in a checkout of the candidate, nothing beside.
plugin "suite" {
  config = {
    knobs          = null
    overrides_file = null
  }
}

environment "example" {
  suite = "${var.suite}/suite.json"
  source {
    build   = ["go", "vet", "."]
    repairs = 2
  }
}

# The proposer and the builder are shown train.go and model.go whole:
# their prompts are some 2,400 tokens, where a knob edit's are 500.
role "proposer" {
  tokens {
    in = { low = 1000, expected = 2500, high = 4000 }
  }
}

role "implementer" {
  tokens {
    in  = { low = 1000, expected = 2500, high = 4000 }
    out = { low = 50, expected = 200, high = 400 }
  }
}
