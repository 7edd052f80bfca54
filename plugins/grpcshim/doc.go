// Package grpcshim connects the Go contract in package plugins to the gRPC
// protocol in plugins/proto: for each plugin kind one file holds the
// go-plugin plugin.GRPCPlugin, the client shim (a plugins.X that calls over
// gRPC) and the server shim (a gRPC service that calls a plugins.X).
//
// It also fixes the handshake (magic cookie and protocol version map) and how
// errors cross the wire: every error carries a gRPC status code, and the error
// kinds come back out as themselves (errors.Is works on the host side):
//
//	plugins.ErrUnsupported    Unimplemented
//	plugins.ErrUnknownRun     NotFound
//	plugins.ErrConfig         InvalidArgument
//	plugins.ErrPluginStart    FailedPrecondition
//	context.Canceled          Canceled
//	context.DeadlineExceeded  DeadlineExceeded
//
// Package plugins/sdk serves these shims from a plugin binary; package
// plugins/host dispenses them from a started plugin process.
package grpcshim
