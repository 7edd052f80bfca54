# MLS-Bench-Lite as a task suite (seed 002): the environment every
# critics-paper flagship spec runs (openevolve.hcl, critic-evolve.hcl and
# common/critic-grpo.hcl extend this file). Not a spec to run alone: it
# has no loop, and names no manifest: openevolve.hcl, critic-grpo.hcl and
# critic-grpo-verify-all.hcl each write its suite attribute.
#
# specs/suites/mls-bench-lite.json lists the benchmark's 30 tasks in its
# 12 domains (the paper's Table 13, with its marks as critic_split);
# rl-value-discrete is left out here, as the paper leaves it out of every
# figure, so the loops run the 29 scored tasks in 11 domains. Each task is
# a seed program in source mode: its directory in your checkout (named
# once, by mls_bench_root) is imported into a git repository of Assay's
# own, the implementer's patches change only its edit surface, and each
# real run is the task's evaluator at the top of the candidate's checkout,
# which prints combined_score=X (higher is better).
#
# validate, estimate and plan need nothing of yours. check and run need:
#   -var mls_bench_root=DIR  your checkout: one directory per task, named
#                            after it (edit a task's scaffold.repository in
#                            the manifest where yours differs)
#   each {"fill": ...}       of the manifest: a task's evaluator command and
#                            edit surface from its files, its baseline and
#                            bounds from MLS-Bench's official scoring
#                            specification (the paper gives them for
#                            dl-activation-function's edit surface and
#                            baseline only)
# Each is refused, at its line in this file or the manifest, until given.

variable "mls_bench_root" {
  type        = string
  default     = ""
  description = "your checkout of MLS-Bench's tasks, one directory per task of specs/suites/mls-bench-lite.json (empty: validate, estimate and plan work; check and run refuse the suite)"
}

plugin "runner" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    # Each task's evaluator (the manifest's evaluate) is the command.
    metric_regex = "(?m)^combined_score=([0-9.eE+-]+)$"
  }
}

environment "mls_lite" {
  # The spec that extends this file names the manifest,
  # suite = "suites/mls-bench-lite.json" (a path is relative to the file
  # that writes it, and the specs are one folder up).
  family        = "mixed"
  suite_root    = var.mls_bench_root
  suite_exclude = ["rl-value-discrete"] # unscored: 29 tasks in 11 domains
  trainer       = plugin.runner
  # Gains in combined_score's own units: the papers' rewards read only a
  # gain's sign, and their tables the normalised scores (the report's).
  scale = 1
  run_cost {
    gpu   = "H100"
    gpus  = 1
    hours = minutes(45)
  }
  # Each task's directory is its seed program; the manifest gives the
  # editable paths. No repairs (in source mode a task's repairs are its
  # source's, over a loop's): a repaired run would be one more real run,
  # and the papers count one verification per candidate (OpenEvolve's one
  # per island-round, GRPO's 10,000), so a child that fails to build or
  # run is its candidate's verification.
  source {
    import {}
    repairs = 0
  }
}
