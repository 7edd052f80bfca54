package builtin

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// setProcName names the process as ps, top and pgrep show it: a built-in
// is started from /proc/self/exe (package plugins/host), which would
// otherwise name it "exe". The kernel keeps the first 15 bytes.
func setProcName(name string) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return // a NUL in the name: keep the kernel's
	}
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(p)), 0, 0, 0)
}
