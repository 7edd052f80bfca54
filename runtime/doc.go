// Package runtime executes a compiled plan (package compiler/plan): baseline
// runs, seed records, RL loops over a proposer policy (LM2LM: RWM-predicted
// rewards with on-policy calibration; or critic-screened GRPO), evolution
// loops with islands and critic voting, and evaluation on holdout tasks.
//
// A task's baseline b_e is declared in the plan, supplied by a benchmark
// plugin, or measured by the plan's baselines phase (one real run of the
// unedited reference configuration per listed task, before anything else).
// The runtime starts no baseline run the plan did not count: a real run of
// a task whose baseline is still unknown stops the run with an error.
//
// It reaches plugins only through the interfaces of package plugins, opened
// by a Loader, and records every call, result, reward, policy update and
// budget reservation in a per-run journal (package runtime/journal). A run is
// a deterministic function of the plan, its seed and the plugins' answers:
// every random choice is derived from (seed, phase, step, index), never from
// a shared stream, and every plugin answer is journaled under a stable key,
// so a resumed run replays the journal and ends with the same totals as an
// uninterrupted one. Finished real runs are never run again, and budgets are
// reserved before a run starts, so no cap can be exceeded under concurrency,
// retries or crashes.
//
// On a cluster executor (every kind but local) the independent runs of a
// phase (seed records, a calibration round's top-rated proposals, an
// evaluation) are reserved together, started as one batch through
// plugins.BatchStarter (one Slurm job array with the command trainer), and
// every handle is journaled before any is waited on. On resume, journaled
// handles are waited on and reserved runs without one go out again as a
// batch of just those; StartBatch is idempotent per run id.
//
// On every executor a run counts as started once its handle is durable in
// the journal, before anything waits on it; a resume waits on every
// started run without a result through its handle, whatever trainer
// process serves it then. Only a run its trainer no longer knows
// (plugins.ErrUnknownRun) starts again, journaled first as a re-execution
// that status counts.
//
// A replay (Options.Replay, replay.go) runs a plan again with every LLM
// answer and policy update taken from an earlier run's journal, matched by
// call key and role and refused at the first call whose request (a digest
// journaled with each answer, replay_call.go) differs; it starts no LLM
// plugin, and with Replay.Runs takes real runs' results from the journal
// too.
//
// While a phase runs, the budget holds back what the plan's hold_back
// says the phases after it need (real runs, GPU-hours, dollars). A phase a
// cap stops or leaves with fewer real runs than the plan gives it is a cut
// (capcut.go): the run ends in state stopped_at_cap, naming each. A phase
// that measured nothing (every build failed, every call of a role was
// unparsed, no candidate got a real run) ends the run in state
// phase_failed, with the last distinct reasons (phasefail.go).
//
// Check (check.go) is a canary of a plan through the same service: one
// build per seed program, one baseline run per task, one call per role,
// and every prompt counted against its tokens.in, before a run spends.
//
// The code is a small interpreter of the plan's phases. One service
// (service.go) owns what every phase shares: the plan's blocks by name,
// plugin supervision (plugins.go), real runs (realrun.go: reserve, start,
// wait, journal), the records store, the policy store, the journal, the
// budget, measured figures and progress; its counts are a tally changed
// only through its methods (tally.go). Each plan phase kind is one node
// type holding the service as a named field, never embedded (phases.go:
// baselines, seed records, RL with its calibration rounds, evolution,
// evaluation), made through one table keyed by phase kind: a new kind is
// one type and one row. A phase reserves under a scope (scope.go), a value
// naming the phase charged and what is held back for later phases.
// structure_test.go keeps the division: no struct embeds the service and
// no type has more than 30 methods.
//
// The run commands (assay run, resume, status, report) in cmd/assay call
// Run, Status and LoadReport. Next phase: the plugins, as separate processes
// (package plugins/host).
package runtime
