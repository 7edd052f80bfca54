# specs/quickstart-slurm.hcl, quicker, for TestSlurmQuickstartArrays: the same
# phases (4 seed records, an RL loop on predicted gain, one calibration round
# of 2, Avg@2/Best@2 on the holdout task: 8 real runs) with a shorter training
# command and a declared baseline, so no baseline runs are needed. The test
# copies this file elsewhere and points extends at the repository's spec.
extends = "../../../../specs/quickstart-slurm.hcl"

name = "quickstart-slurm-test"

plugin "command" {
  config = {
    command    = "go run ./examples/trainer/tinylm-train --config {{config}} --seed {{seed}} --steps 100 --out {{workdir}}/metrics.json"
    time_limit = "2m"
  }
}

environment "tiny" {
  baseline = 3.5 # val_bpb of tinylm-train's defaults after 100 steps
}

budget {
  real_runs = 8
}

executor {
  slurm {
    time_limit = "0:05:00"
  }
}
