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
// A plugin stays resident for the whole run. When its process dies, the next
// call starts it again; calls that are safe to repeat (Describe, Wait,
// Cancel, Complete, Update, Tasks) are retried once on the new process,
// while Start and StartBatch return ErrPluginCrashed so the runtime, which
// journals run handles, decides whether the runs were started. A trainer
// that serves no StartBatch gets one Start per run instead.
//
// The runtime (package runtime) is the only caller; the protocol lives in
// plugins/proto and plugins/grpcshim.
package host
