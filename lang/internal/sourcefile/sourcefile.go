package sourcefile

import (
	"errors"
	"io/fs"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
)

// Read reads a spec or variable file through budget.ReadFile, at most max
// bytes, and turns a refusal into a diagnostic (E_TOO_LARGE, E_FILE_READ)
// at the file's start; what names the file in messages ("spec", "variable
// file"). Both front ends read their files through it.
func Read(path, what string, max int) ([]byte, *diag.Diagnostic) {
	src, err := budget.ReadFile(path, max)
	if err == nil {
		return src, nil
	}
	start := diag.Range{Filename: path, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
	var tl *budget.TooLargeError
	var nr *budget.NotRegularError
	switch {
	case errors.As(err, &tl):
		return nil, diag.Errorf("E_TOO_LARGE", start, "%s is too large: Assay reads specs of at most %d bytes", what, budget.DefaultMaxSourceBytes).
			WithDetail("A spec describes an experiment in a few kilobytes; move generated data (task lists, tables) into a benchmark or environment definition instead.")
	case errors.As(err, &nr):
		return nil, diag.Errorf("E_FILE_READ", start, "cannot read %s: %s is %s, not a regular file", what, path, budget.Kind(nr.Mode)).
			WithDetail("Name a regular file: Assay does not read a %s from a pipe, a device or a directory.", what)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return nil, diag.Errorf("E_FILE_READ", diag.Range{Filename: path}, "cannot read %s %s: %v", what, path, err)
}
