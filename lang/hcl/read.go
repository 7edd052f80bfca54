package hcl

import (
	"assay/lang/diag"
	"assay/lang/internal/budget"
	"assay/lang/internal/sourcefile"
)

// readSource reads a spec or variable file, bounded and regular files
// only; what names the file in messages ("spec", "variable file").
func readSource(path, what string) ([]byte, *diag.Diagnostic) {
	return sourcefile.Read(path, what, budget.DefaultMaxSourceBytes)
}
