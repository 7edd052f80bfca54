// Package executor is the small interface between the command trainer and
// the places a run's script can execute: package executor/local (a bounded
// pool of subprocesses with GPU slots) and package executor/slurm (sbatch,
// job arrays, one squeue poll for all jobs, scancel).
//
// An executor runs a prepared bash script in a prepared directory; it knows
// nothing about metrics, proposals or configs. It reports how the script
// ended (State, exit code, signal, reason) and the command trainer
// (package trainer) turns that into a plugins.RunResult. Handles are plain
// strings "KIND:ID" so the runtime can journal them and a fresh process can
// re-attach with Wait after a crash.
package executor
