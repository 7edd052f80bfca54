package cue

import (
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/sourcefile"
)

// readSource reads a spec or variable file, bounded and regular files
// only; what names the file in messages ("spec", "variable file"); max is
// how many bytes it may hold, the limit less what the other files of a
// package already take.
func readSource(path, what string, max int) ([]byte, *diag.Diagnostic) {
	return sourcefile.Read(path, what, max)
}

// fileStart is the first position of a file, for a diagnostic about the
// file as a whole.
func fileStart(path string) diag.Range {
	return diag.Range{Filename: path, Start: diag.Pos{Line: 1, Column: 1}, End: diag.Pos{Line: 1, Column: 1}}
}
