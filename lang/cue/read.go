package cue

import (
	"errors"
	"io/fs"

	"assay/lang/diag"
	"assay/lang/internal/budget"
)

// readSource reads a spec or variable file through budget.ReadFile and turns
// a refusal into a diagnostic at the file's start; what names the file in
// messages ("spec", "variable file"); max is how many bytes it may hold, the
// limit less what the other files of a package already take.
func readSource(path, what string, max int) ([]byte, *diag.Diagnostic) {
	src, err := budget.ReadFile(path, max)
	if err == nil {
		return src, nil
	}
	start := fileStart(path)
	var tl *budget.TooLargeError
	var nr *budget.NotRegularError
	switch {
	case errors.As(err, &tl):
		return nil, diag.Errorf(codeTooLarge, start, "%s is too large: Assay reads specs of at most %d bytes", what, budget.DefaultMaxSourceBytes).
			WithDetail("A spec describes an experiment in a few kilobytes; move generated data (task lists, tables) into a benchmark or environment definition instead.")
	case errors.As(err, &nr):
		return nil, diag.Errorf(codeFileRead, start, "cannot read %s: %s is %s, not a regular file", what, path, budget.Kind(nr.Mode)).
			WithDetail("Name a regular file: Assay does not read a %s from a pipe, a device or a directory.", what)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return nil, diag.Errorf(codeFileRead, diag.Range{Filename: path}, "cannot read %s %s: %v", what, path, err)
}

// fileStart is the first position of a file, for a diagnostic about the
// file as a whole.
func fileStart(path string) diag.Range {
	return diag.Range{Filename: path, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
}
