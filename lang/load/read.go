package load

import "github.com/assay-lang/assay/lang/internal/budget"

// MaxSourceBytes is the most a spec or variable file may hold.
const MaxSourceBytes = budget.DefaultMaxSourceBytes

// ReadSource reads a spec or variable file as the front ends do: a regular
// file of at most MaxSourceBytes, read without ever taking more than one
// byte past the limit, and without blocking on a named pipe. Commands that
// read spec files themselves (fmt) use it so that they refuse what Load
// refuses.
func ReadSource(path string) ([]byte, error) {
	return budget.ReadFile(path, MaxSourceBytes)
}
