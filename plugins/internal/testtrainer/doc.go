// Command testtrainer is a trainer plugin for the runtime's crash tests: a
// real plugin subprocess whose runs take a configurable time and leave
// markers in their run directories, so a test can check from the trainer's
// side that no run finished twice. It lives under plugins/ because it is
// built with the SDK, which the runtime never imports. A run's metric is a
// fixed function of its edits; it offers the tinylm knobs so the offline
// proposer works.
//
// A finished run's result is its "done" marker, so a restarted process
// re-attaches to it (Wait on its handle, the run directory) as a real
// trainer does; a run in flight when its process died is unknown
// (ErrUnknownRun) and runs again.
//
// Config: delay_ms (run time, default 100); crash_run (a run id: the
// process exits when that run starts, once, leaving a marker next to the
// run directory so the restarted process does not crash again).
//
// Next phase: none; runtime tests build it and start it through the plugin
// host like any plugin.
package main
