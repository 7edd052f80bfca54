// Package host loads Assay plugins for the runtime.
//
// Init resolves each plugin a spec declares (Spec) to an executable — a
// built-in plugin ("builtin:NAME") is built from plugins/builtin/NAME in the
// Assay module and cached under .assay/plugins/, any other source is a path
// to an executable — and records name, kind, source, version, binary path
// and SHA-256 in a lock file (assay.lock.json). Open starts a locked plugin
// as a hashicorp/go-plugin subprocess speaking gRPC only, refusing a binary
// whose checksum differs from the lock, and hands out plugins.Trainer,
// plugins.LLM and plugins.Benchmark values.
//
// The lock is trusted, never refreshed silently. One lock file serves every
// spec in its directory, keyed by plugin name: Init keeps entries it was not
// asked about, and changes an existing entry (checksum, kind, source,
// version) only for plugins named in Options.Upgrade (or UpgradeAll);
// otherwise it refuses with a *ChecksumError or *ConflictError. Built-ins
// are built into a temporary file, hashed, and renamed over the cached
// binary only when everything resolved, because `go build -o` leaves an
// existing binary with a current build ID alone even when its bytes changed.
//
// Every Open failure is plugins.ErrPluginStart (a checksum mismatch also
// plugins.ErrChecksum): permanent, the run must stop.
//
// A plugin stays resident for the whole run. When its process dies, the next
// call starts it again; calls that are safe to repeat (Describe, Wait,
// Cancel, Complete, Update, Tasks) are retried once on the new process,
// while Start and StartBatch return ErrPluginCrashed so the runtime, which
// journals run handles, decides whether the runs were started. A trainer
// that serves no StartBatch gets one Start per run instead. Errors of a
// permanent kind (plugins.IsPermanent) are never retried, and a process that
// cannot be started again stays failed: later calls return that error.
//
// The runtime (package runtime) is the only caller; the protocol lives in
// plugins/proto and plugins/grpcshim.
package host
