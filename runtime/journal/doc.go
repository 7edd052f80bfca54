// Package journal is the durable record of one run of an experiment: an
// append-only table of events in an embedded SQLite database (WAL mode), one
// file per run under .assay/runs/<id>/journal.db.
//
// Every plugin call and its result, every reward, policy update (with the new
// policy state), calibration round, budget reservation and phase boundary is
// a row with a sequence number. The runtime replays a run from its journal on
// resume: a call whose result is journaled is not made again.
//
// Real runs are bookkept transactionally, each step committed (fsync) before
// the runtime acts on it: Reserve (before Start; the reservation counts
// against the budgets), Started (the trainer's handle) and Finished (the
// result). A run key is reserved at most once, so a finished real run is
// never run again and never counted twice. Other events are grouped into
// batched transactions, which is about twenty times faster; losing an
// unflushed batch in a crash only means the calls are made again.
//
// Next phase: package runtime writes and reads the journal; the status and
// report commands read it.
package journal
