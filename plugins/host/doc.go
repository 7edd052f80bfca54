// Package host loads Assay plugins for the runtime.
//
// Each spec has its own lock file beside it (LockPathFor: quickstart.hcl
// is locked by quickstart.hcl.lock), meant to be committed with the spec.
// Init resolves each plugin the spec declares (Spec) and records its name,
// kind, source and version, and what pins it: for a built-in plugin
// ("builtin:NAME") the Assay release that serves it, since built-ins are
// served by the assay binary itself; for any other source, a path to an
// executable, its SHA-256 per platform (GOOS/GOARCH), so one lock serves a
// team on several platforms. Open starts a locked plugin as a
// hashicorp/go-plugin subprocess speaking gRPC only: a built-in as the
// running executable (Self) with the hidden arguments of sdk.BuiltinArg,
// started on Linux from the running image itself (/proc/self/exe, so an
// upgrade of the file mid-run changes nothing and no hash is needed), and
// elsewhere verified against that executable's own SHA-256; any other
// plugin as its executable, verified against the lock's checksum for this
// platform; it
// hands out plugins.Trainer, plugins.LLM and plugins.Benchmark values.
//
// The lock is trusted, never refreshed silently. Init only adds (a plugin
// the lock lacks, this platform's checksum of a plugin locked elsewhere)
// and drops plugins the spec no longer declares; it changes an entry
// (checksum, kind, source, version, release) only for plugins named in
// Options.Upgrade (or UpgradeAll), and otherwise refuses with a
// *ChecksumError, *ConflictError or *ReleaseError. Verify checks a lock
// against a spec without changing it, for a run. Every change is logged.
//
// Every Open failure is plugins.ErrPluginStart (a checksum mismatch also
// plugins.ErrChecksum): permanent, the run must stop.
//
// A plugin stays resident for the whole run. When its process dies, the
// call that saw it and every later one return a *CrashError
// (ErrPluginCrashed, which is plugins.ErrCrashed) carrying the end of what
// the process wrote to stderr; the host never restarts a process or repeats
// a call, and Alive says whether the current process still runs.
// The runtime is the one supervisor: it closes the dead plugin, opens it
// again (a fresh process, checked against the lock as at the start), and
// decides which calls to repeat, since it journals run handles and knows
// whether a run was started. A trainer that serves no StartBatch gets one
// Start per run instead.
//
// The runtime (package runtime) is the only caller; the protocol lives in
// plugins/proto and plugins/grpcshim.
package host
