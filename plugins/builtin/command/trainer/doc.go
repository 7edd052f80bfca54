// Package trainer is the "command" trainer: it runs a user's own training
// command (any codebase, any language) once per real run and reads the
// metric it reports. The spec's plugin block configures it:
//
//	config = {
//	  command      = "python train.py --config {{config}} --seed {{seed}}"
//	  apply        = "overrides"            # or "patch" (git apply at a pinned revision)
//	  metric_file  = "metrics.json"         # or metric_regex = "val_bpb=([0-9.]+)"
//	  metric_field = "eval.val_bpb"
//	  time_limit   = "2h"
//	  infeasible_exit_codes = [3]
//	  infeasible_patterns   = ["CUDA out of memory"]
//	}
//
// Every run gets its own working directory (the request's WorkDir, or
// run_dir/RUN_ID) holding its inputs (run.sh with the rendered command, the
// overrides file or proposal.patch and the checkout in src/; in source
// mode only run.sh and the checkout), its logs
// (stdout, stderr) and outputs, and run.json, which lets Wait re-attach from a
// fresh process after a crash: `bash run.sh` in that directory re-runs it by
// hand.
//
// In source mode (an environment or task with a source block) the request
// names the program to run (RunRequest.Source: a repository and the
// candidate's commit, which the runtime built under refs/assay/): the run
// checks that commit out in src/ and runs there (a suite task's command
// too: task_dir, if given, is relative to src/), and the candidate is
// exactly its commit. No overrides file is written and ASSAY_CONFIG is
// not set, so a program that reads $ASSAY_CONFIG over its constants runs
// its own; the proposal's edits and patch are not used. A config that
// would put anything else into the run is refused, by `assay validate`
// (E_SOURCE_KNOBS) and by the trainer alike (pluginconfig.SourceModeProblems):
// knobs, a {{config}}, knob or edit placeholder in the command, knob
// mode's settings (apply, overrides_file, overrides_format, repo,
// revision) and an ASSAY_CONFIG of env or pass_env. The editable files
// are the edit surface; a change is a patch.
//
// Every value a run sees is of its knob's type (base/valuetype; an edit
// of a config without knobs is a plain word): proposalValues decides a
// proposal with any other value infeasible before anything runs.
//
// The command is bash with {{placeholders}}, parsed and checked by
// stdlib/pluginconfig (CompileCommand), the same code `assay validate`
// runs: each placeholder becomes a quoted reference to a variable run.sh
// defines with the value single-quoted, so bash passes a value on as one
// word and never reads it as code; a placeholder where bash itself would
// evaluate it (arithmetic, eval, a command name, a here-document, ...) or
// in a word with more than plain text around it (the code of bash -c
// "... {{lr}}") is a config error.
//
// The script inherits only a base environment (PATH, HOME, ...; see
// pluginconfig.JobBaseEnv) and the names in config.pass_env, locally and
// through sbatch --export alike: no secret of Assay's (an LLM plugin's API
// key) reaches training code.
//
// Where the script runs is an executor (package executor: executor/local, a
// subprocess pool with GPU slots; executor/slurm, sbatch and job arrays).
// The plugin binary in plugins/builtin/command serves this package over the
// plugin protocol; the runtime journals the handles Start returns.
package trainer
