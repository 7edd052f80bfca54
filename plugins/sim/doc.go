// Package sim is a simulated world for rehearsing an experiment: a
// trainer, LLM roles and a benchmark that answer at once, in process, with
// outcomes drawn from distributions a World sets (the gain of a proposal
// per environment, the critic's accuracy and how often it is unsure, the
// world model's noise, build failures, the hours a run takes), and a
// virtual clock they advance by what each call and run would take.
//
// Every outcome is a pure function of the world's seed and what is asked
// (the task, the proposal's edits, the call's seed), so a rehearsal is
// reproducible and a resumed rehearsal makes the same draws as an
// uninterrupted one.
//
// The plugins implement the interfaces of package plugins; the runtime
// reaches them through a Loader (package runtime/rehearse builds one), the
// same code path as plugins served over gRPC.
package sim
