//go:build unix

package boundedfile

import "syscall"

// openNonBlock keeps open from waiting for a writer should a named pipe
// take the place of a checked regular file.
const openNonBlock = syscall.O_NONBLOCK
