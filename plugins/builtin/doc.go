// Package builtin serves Assay's built-in plugins from the executable that
// links it: tinylm (package tinylm/model), offline (offline/model), openai
// and command (command/trainer).
//
// A built-in plugin has no binary of its own. The host starts the assay
// executable itself as the plugin subprocess, with the hidden arguments of
// sdk.BuiltinArg, over the same go-plugin protocol and checksum check as
// any plugin; Main, called first in the assay command's main (and in the
// TestMain of a test package that opens built-ins), serves the plugin when
// asked to and returns otherwise. So `go install ./cmd/assay` gives a tool
// that runs built-in plugins in any directory, with nothing to compile on
// first use.
package builtin
