// Package sdk is what a plugin binary imports to serve an Assay plugin.
// A plugin is an ordinary Go program whose main calls one Serve function:
//
//	func main() { sdk.ServeTrainer(&myTrainer{}) }
//
// The program then speaks the gRPC protocol of plugins/proto on the
// handshake of plugins/grpcshim, and the Assay host (package plugins/host)
// starts it, checks its checksum and calls it. A binary started by hand
// prints a short message and exits.
//
// Log with Logger: plugin stdout is the handshake channel and must not be
// written to; stderr lines reach the host's plugin log.
package sdk
