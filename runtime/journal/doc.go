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
// One process at a time writes a run: Open takes an exclusive flock on
// journal.db.lock in the run's directory and holds it until Close, writing
// its pid, host and start time into the file; a second Open fails with a
// *LockedError (ErrLocked) that names them, instead of colliding in the
// database. The kernel drops the lock when the holder dies, so an
// interrupted run can be resumed at once. OpenReadOnly takes no lock and
// writes nothing (status, report), and tells an empty journal (ErrEmpty)
// from an unreadable one (ErrUnreadable).
//
// A rehearsal whose folder goes when it ends keeps its journal in the
// process instead (Options.Memory): the same bookkeeping over a slice of
// events, which nothing but the process reads, at a fraction of an SQLite
// insert's cost.
//
// Next phase: package runtime writes and reads the journal; the status and
// report commands read it.
package journal
