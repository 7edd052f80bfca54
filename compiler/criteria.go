package compiler

import (
	"github.com/assay-lang/assay/base/prompt"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// criteriaDir checks a role's criteria_dir: a critic's, read from disk.
func (k *checker) criteriaDir(r *spec.Role) {
	p := r.Prompt
	if p == nil || !p.CriteriaDir.Set {
		return
	}
	switch {
	case r.Kind.V != prompt.KindCritic:
		k.add(diag.Errorf(CodeNotApplicable, p.CriteriaDir.Range, "role %q: criteria are a critic's, but the role is a %s", r.Name, r.Kind.V).
			WithDetail("Remove criteria_dir, or set it on a critic role."))
	case p.TaskCriteria == nil:
		k.add(diag.Errorf(CodeMissing, p.CriteriaDir.Range, "role %q: criteria_dir %s was not read", r.Name, p.CriteriaDir.V).
			WithDetail("Criteria files are read when the spec is loaded from disk (lang/load); load the spec with its files."))
	}
}

// taskCriteria are a critic's criteria per task, trimmed as a criteria
// file is; nil without criteria_dir.
func taskCriteria(p *spec.Prompt) map[string]string {
	if !p.CriteriaDir.Set || len(p.TaskCriteria) == 0 {
		return nil
	}
	out := make(map[string]string, len(p.TaskCriteria))
	for task, text := range p.TaskCriteria {
		out[task] = prompt.TrimTemplate(text)
	}
	return out
}
