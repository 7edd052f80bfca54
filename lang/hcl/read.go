package hcl

import (
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/internal/sourcefile"
)

// readSource reads a spec or variable file, bounded and regular files
// only; what names the file in messages ("spec", "variable file").
func readSource(path, what string) ([]byte, *diag.Diagnostic) {
	return sourcefile.Read(path, what, budget.DefaultMaxSourceBytes)
}
