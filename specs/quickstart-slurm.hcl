# The quickstart loop on a Slurm cluster, with the command trainer.
#
# Every real run is a Slurm job that runs a real (small) training command of
# this repository, examples/trainer/tinylm-train: it reads the proposal's
# edits from an overrides file, trains a tiny character-level language model
# on the CPU and writes metrics.json. Seed records, an RL loop on predicted
# gain, one calibration round and the holdout evaluation, as in
# small-local.hcl; only where the runs go differs. See docs/cluster.md.
#
# Run it from the repository root on a machine that can reach the cluster
# (`sinfo` answers); .ci/slurm-up.sh starts a one-node cluster for trying it.
#
# Expected figures (assay estimate):
#   real runs  3 baselines + 4 seed + 2 calibration + 1 holdout task x 2 = 11
#   rwm calls  4 steps x 2 states x 4 proposals = 32
# No baseline is declared, so the baselines phase measures each task's
# (2 train + 1 holdout) with one job of the unedited command first.

extends = "common/lm2lm-mini.hcl"

name        = "quickstart-slurm"
description = "LM2LM in miniature: a real training command per run, submitted to Slurm"

plugin "command" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    # Each run gets a clone of this repository at the pinned revision in its
    # working directory (src/) and runs there.
    repo     = "."
    revision = "HEAD"
    apply    = "overrides"
    command  = "go run ./examples/trainer/tinylm-train --config {{config}} --seed {{seed}} --steps 300 --out {{workdir}}/metrics.json"

    metric_file           = "{{workdir}}/metrics.json"
    metric_field          = "eval.val_bpb"
    time_limit            = "10m"
    infeasible_exit_codes = [3]
    infeasible_patterns   = ["training diverged"]

    # What a proposal may edit: knobs of examples/trainer/tinylm-train.
    knobs = {
      learning_rate = { default = "0.003", mechanism = "optimizer", values = ["0.001", "0.003", "0.01", "0.03"] }
      optimizer     = { default = "adam", mechanism = "optimizer", values = ["momentum", "adam"] }
      lr_schedule   = { default = "constant", mechanism = "schedule", values = ["constant", "cosine"] }
      width         = { default = "32", mechanism = "architecture", values = ["16", "32", "64"] }
      activation    = { default = "tanh", mechanism = "architecture", values = ["tanh", "relu", "gelu"] }
    }
  }
}

environment "tiny" {
  trainer = plugin.command
  run_cost {
    gpus = 0 # CPU work: the jobs ask Slurm for no GPU
  }
}

executor {
  kind = "slurm"
  slurm {
    partition  = "debug"
    time_limit = "0:15:00"
    cpus       = 1
    array      = true
  }
}
