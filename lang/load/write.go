package load

import (
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/lang/cue"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/spec"
)

// Write renders s in the language the extension of path selects (.hcl,
// .cue, .json, .yaml or .yml), for `assay convert`. Evaluated values are written, so variables keep
// their declarations but their uses appear as values.
func Write(s *spec.Spec, path string) ([]byte, diag.Diagnostics) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".hcl":
		return hcl.Write(s), nil
	case ".cue":
		return cue.Write(s), nil
	case ".json", ".yaml", ".yml":
		b, err := cue.WriteData(s, cue.Language(path))
		if err != nil {
			return nil, diag.Diagnostics{diag.Errorf(codeFormat, diag.Range{Filename: path}, "cannot write the spec as %s: %v", cue.Language(path), err)}
		}
		return b, nil
	}
	return nil, diag.Diagnostics{diag.Errorf(codeFormat, diag.Range{Filename: path}, "cannot tell the spec language of %q from its name", path).
		WithDetail("name the output *.hcl, *.cue, *.json, *.yaml or *.yml")}
}
