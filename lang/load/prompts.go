package load

import (
	"path/filepath"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// MaxPromptFileBytes is the most a prompt template file may hold.
const MaxPromptFileBytes = 256 << 10

const codePromptFile = "E_PROMPT_FILE"

// readPrompts reads the prompt template files the spec's roles name, each
// relative to the file that writes it, into the spec and the sources: a
// prompt file is part of the spec, so saved plans hash it and diagnostics
// quote it.
func (r *resolver) readPrompts(s *spec.Spec) diag.Diagnostics {
	var ds diag.Diagnostics
	if s == nil {
		return nil
	}
	for _, role := range s.Roles {
		p := role.Prompt
		if p == nil {
			continue
		}
		for _, f := range []struct {
			v         spec.Val[string]
			out, file *string
		}{{p.SystemFile, &p.SystemText, &p.SystemPath}, {p.UserFile, &p.UserText, &p.UserPath}, {p.CriteriaFile, &p.CriteriaText, &p.CriteriaPath}} {
			if !f.v.Set {
				continue
			}
			path := f.v.V
			if !filepath.IsAbs(path) && f.v.Range.Filename != "" {
				path = filepath.Join(filepath.Dir(f.v.Range.Filename), path)
			}
			*f.file = path
			b, ok := r.overlay(path)
			if !ok {
				var err error
				if b, err = budget.ReadFile(path, MaxPromptFileBytes); err != nil {
					ds = append(ds, diag.Errorf(codePromptFile, f.v.Range, "cannot read prompt file %s: %v", f.v.V, unwrapPathError(err)).
						WithDetail("A prompt file is a path relative to the file that writes it, of at most 256 KiB; fix the path, or write the template inline."))
					continue
				}
			}
			r.src[path] = b
			*f.out = string(b)
		}
		p.Read = true
	}
	return ds
}
