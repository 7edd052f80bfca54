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
// A plugin stays resident for the whole run. When its process dies, the
// call that saw it and every later one return a *CrashError
// (ErrPluginCrashed); the host never restarts a process or repeats a call.
// The runtime is the one supervisor: it closes the dead plugin, opens it
// again (a fresh process, checked against the lock as at the start), and
// decides which calls to repeat, since it journals run handles and knows
// whether a run was started. A trainer that serves no StartBatch gets one
// Start per run instead.
//
// The runtime (package runtime) is the only caller; the protocol lives in
// plugins/proto and plugins/grpcshim.
package host
