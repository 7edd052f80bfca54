package budget

import (
	"io/fs"

	"github.com/assay-lang/assay/base/boundedfile"
)

// The front ends' names for boundedfile's errors.
type (
	TooLargeError   = boundedfile.TooLargeError
	NotRegularError = boundedfile.NotRegularError
)

// ErrNotRegular is boundedfile.ErrNotRegular.
var ErrNotRegular = boundedfile.ErrNotRegular

// Kind names the type of file a mode describes (boundedfile.Kind).
func Kind(m fs.FileMode) string { return boundedfile.Kind(m) }

// ReadFile reads a spec, variable or manifest file through
// boundedfile.Read, at most max bytes (0 means DefaultMaxSourceBytes).
func ReadFile(path string, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxSourceBytes
	}
	return boundedfile.Read(path, max)
}
