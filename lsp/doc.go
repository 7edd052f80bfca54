// Package lsp is Assay's language server: diagnostics, hover, completion,
// go to definition, find references, formatting and an estimate code lens
// for .hcl and .cue specs, spoken over the Language Server Protocol
// (go.lsp.dev/jsonrpc2 for messages, go.lsp.dev/protocol for its types).
// The base protocol's framing is its own (frame.go): header lines, header
// count and body size are bounded, and a malformed frame is answered with
// a JSON-RPC error (-32700, -32600) instead of ending the connection.
//
// The server owns no language of its own. Diagnostics are what `assay
// validate` reports: lang/load (with the editor's unsaved buffers as an
// overlay over the disk, so a base spec being edited counts) followed by
// the compiler and the estimate's cap check. Documentation, types, enums
// and defaults come from the one schema (lang/spec.Describe and
// compiler.Defaults); formatting is lang/hcl.Format, as `assay fmt`;
// figures come from compiler/estimate.
//
// Editor features that work on text being typed (hover, completion,
// definitions, references) read a token stream of the buffer (the HCL or
// CUE lexer), which stays usable when the file does not parse. Compiles run
// on one worker goroutine, debounced, never on a request's goroutine; an
// edit supersedes a compile in flight, whose result is then dropped.
//
// cmd/assay/lsp.go serves it on standard input and output.
package lsp
