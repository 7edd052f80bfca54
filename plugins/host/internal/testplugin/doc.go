// Command testplugin is a plugin binary for the host package's tests. It
// serves all three kinds and misbehaves on purpose on magic inputs: it
// exits mid-call, blocks until cancelled, and fails with chosen errors.
//
// With ASSAY_TESTPLUGIN_SOCKET set it instead serves the same gRPC services
// on that unix socket without go-plugin, for benchmarks that compare the two.
package main
