//go:build !linux

package builtin

// setProcName is needed on Linux only, where a built-in is started from
// /proc/self/exe.
func setProcName(string) {}
