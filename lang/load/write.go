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
// their declarations but their uses appear as values; a task suite's
// tasks are not written out, its suite attribute lists them.
func Write(s *spec.Spec, path string) ([]byte, diag.Diagnostics) {
	s = withoutSuiteTasks(s)
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

// withoutSuiteTasks is s less the tasks its environments' suites list
// (their suite attribute stays, and lists them again when the written
// spec is loaded); s itself when no environment has a suite.
func withoutSuiteTasks(s *spec.Spec) *spec.Spec {
	has := false
	for _, e := range s.Environments {
		has = has || e != nil && e.Suite.Set
	}
	if !has {
		return s
	}
	out := spec.Clone(s)
	for _, e := range out.Environments {
		if e == nil || !e.Suite.Set {
			continue
		}
		var own []*spec.Task
		for _, t := range e.TaskList {
			if t.Suite == nil {
				own = append(own, t)
			}
		}
		e.TaskList = own
	}
	return out
}
