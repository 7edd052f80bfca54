// Package plugins defines the Go-side contract between the runtime and
// plugins: one interface per plugin kind (Trainer, LLM, Benchmark) with
// request/response structs, context first. The gRPC protocol in
// plugins/proto carries exactly these messages; package plugins/host loads
// plugin binaries with hashicorp/go-plugin and hands the runtime values that
// satisfy these interfaces; package plugins/sdk lets a plugin author serve one.
//
// The runtime sees only this package, never a plugin's implementation.
package plugins
