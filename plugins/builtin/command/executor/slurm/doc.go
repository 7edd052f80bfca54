// Package slurm runs command-trainer jobs on a Slurm cluster through its
// command-line tools: sbatch --parsable to submit (one job, or a job array
// for a batch of independent runs with the same resources), scontrol show
// job (and sacct where accounting works) to poll, scancel to cancel.
//
// Wait needs nothing but the handle "slurm:JOBID[_TASK]@DIR", so a fresh
// process re-attaches to a job after a crash without resubmitting it. Slurm
// states map to executor states: PREEMPTED, NODE_FAIL and BOOT_FAIL to
// Preempted (requeue), TIMEOUT and DEADLINE to TimedOut, CANCELLED to
// Cancelled (CancelledByUs when Cancel was called). Package trainer turns
// them into run results.
package slurm
