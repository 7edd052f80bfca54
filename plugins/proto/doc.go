// Package proto holds the gRPC protocol (assay.plugin.v1, protocol version 1)
// spoken between the Assay runtime and plugin processes: assay.proto and the
// Go code generated from it. Nothing here is written by hand except this file
// and gen.go.
//
// Package plugins/grpcshim converts between these messages and the Go
// contract in package plugins; package plugins/host and plugins/sdk use the
// shims on the two ends of the wire.
package proto
