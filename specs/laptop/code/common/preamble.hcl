# The preamble the code-change laptop twins share: the example task suite
# (examples/suite, four tasks of a small Go MLP trained for real on the
# CPU) in source mode. examples/suite is a directory of Assay's own
# repository, not a repository's top, so its source imports it: Assay
# copies its files (its tests, which build against Assay's module, left
# out, and ../module's go.mod laid over them) into a git repository of its
# own under the runs directory (.assay/runs/.imports/<hash>), commits them
# as the seed program, and builds every candidate there: the offline LLM's
# unified diff of train.go or model.go applied in a git worktree, `go vet
# .` run there, the result committed under refs/assay/<run>/. Each real
# run is the task's evaluation command (go run -trimpath . -task NAME) in a checkout
# of that commit. Not a spec to run alone: it has no loop.

seed = 1

plugin "suite" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    # Each task's evaluation command (suite.json's evaluate) replaces a
    # command here.
    metric_regex          = "(?m)^val_loss=([0-9.eE+-]+)$"
    infeasible_exit_codes = [3]
    # go run reads its build cache and toolchain settings from these.
    pass_env = ["GOCACHE", "GOPATH", "GOMODCACHE", "GOFLAGS", "GOROOT", "GOTOOLCHAIN", "XDG_CACHE_HOME"]

    # No knobs and no overrides file: in source mode a candidate runs
    # exactly its commit. The edit surface is train.go and model.go,
    # whose settings (defaultLR, defaultEpochs, ...) the proposer is shown.
  }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

prices {
  gpu_hourly = { CPU = 0.05 }
}

environment "example" {
  suite   = "../../../../examples/suite/suite.json"
  trainer = plugin.suite
  scale   = 0.05
  run_cost {
    gpus = 0 # CPU work
    # A run takes about a second; go run's first build of a candidate
    # takes longer, which the high figure (each run's time limit) allows.
    hours = { low = 0.00005, expected = 0.0003, high = 0.03 }
  }
  source {
    import {
      exclude = ["*_test.go"]
      overlay = "../module"
    }
    build   = ["go", "vet", "."]
    repairs = 2
  }
}

# The proposer is shown train.go and model.go whole, as the builder is.
role "proposer" {
  llm         = plugin.offline
  concurrency = 4
  seconds     = 0.001
  tokens {
    in  = { low = 1000, expected = 2500, high = 4000 }
    out = 100
  }
  price {
    in  = 0
    out = 0
  }
}

executor {
  kind        = "local"
  concurrency = 2
}
