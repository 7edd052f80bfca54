// Package local runs command-trainer jobs as subprocesses of this machine: a
// bounded pool (executor.concurrency) with GPU slots handed out as
// CUDA_VISIBLE_DEVICES from a pool of GPU ids (CPU-only when there are
// none), one process group per job so Cancel and time limits kill the
// children too, and a recorded exit code so a fresh process can re-attach to
// a job by its handle "local:PID@DIR".
//
// Package executor defines the interface; package trainer uses it.
package local
