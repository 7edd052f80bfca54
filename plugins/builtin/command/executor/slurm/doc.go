// Package slurm runs command-trainer jobs on a Slurm cluster through its
// command-line tools: sbatch --parsable to submit (one job, or a job array
// for a batch of independent runs with the same resources), squeue (and
// sacct for jobs the controller has forgotten) to poll, scancel to cancel.
//
// Polling is one query for all jobs (poller.go): every Executor of a
// process with the same Runner and interval shares one poller, which asks
// squeue about all the jobs any goroutine waits on, at most once per
// interval, backing off while nothing changes: the load on a controller
// grows with time, not with the number of jobs in flight. Every command
// goes through a Runner (runner.go), so the tests can put a simulated
// cluster behind it; the parsers of the tools' output are in query.go.
//
// Wait needs nothing but the handle "slurm:JOBID[_TASK]@DIR", so a fresh
// process re-attaches to a job after a crash without resubmitting it. Slurm
// states map to executor states: PREEMPTED, NODE_FAIL and BOOT_FAIL to
// Preempted (requeue), TIMEOUT and DEADLINE to TimedOut, CANCELLED to
// Cancelled (CancelledByUs when Cancel was called). Package trainer turns
// them into run results. Jobs go with --no-requeue, so Slurm never reruns
// a preempted job beside the attempt Assay starts (and reserves against
// the caps) itself; a cancel, like a submission, rides out a controller
// that does not answer.
package slurm
