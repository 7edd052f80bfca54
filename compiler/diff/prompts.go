package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/assay-lang/assay/compiler/plan"
)

// promptChanges are the roles whose prompt templates differ, by their
// text: a prompt file edited in place leaves the spec tree as it was, and
// a new default template changes no field at all. Each shows as
// role.NAME.prompt.system_text, user_text or criteria_text, with where the text came
// from and its digest.
func promptChanges(op, np *plan.Plan) []FieldChange {
	type texts struct{ system, user, systemFrom, userFrom, criteria, criteriaFrom string }
	get := func(p *plan.Plan) map[string]texts {
		m := map[string]texts{}
		if len(p.Variants) == 0 {
			return m
		}
		for _, r := range p.Variants[0].Roles {
			if r.Prompt != nil {
				m[r.Name] = texts{r.Prompt.System, r.Prompt.User, r.Prompt.SystemFrom, r.Prompt.UserFrom, r.Prompt.Criteria, r.Prompt.CriteriaFrom}
			}
		}
		return m
	}
	o, n := get(op), get(np)
	var names []string
	for k := range o {
		if _, ok := n[k]; ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var out []FieldChange
	for _, k := range names {
		a, b := o[k], n[k]
		if a.system != b.system {
			out = append(out, FieldChange{Path: "role." + k + ".prompt.system_text", Kind: Changed, Old: describeText(a.systemFrom, a.system), New: describeText(b.systemFrom, b.system)})
		}
		if a.user != b.user {
			out = append(out, FieldChange{Path: "role." + k + ".prompt.user_text", Kind: Changed, Old: describeText(a.userFrom, a.user), New: describeText(b.userFrom, b.user)})
		}
		if a.criteria != b.criteria {
			out = append(out, FieldChange{Path: "role." + k + ".prompt.criteria_text", Kind: Changed, Old: describeText(a.criteriaFrom, a.criteria), New: describeText(b.criteriaFrom, b.criteria)})
		}
	}
	return append(out, taskCriteriaChanges(op, np)...)
}

// taskCriteriaChanges are the per-task criteria (criteria_dir) that
// differ between roles of both plans: role.NAME.prompt.task_criteria.TASK,
// with the digest of each text ("" where a plan has none for the task).
func taskCriteriaChanges(op, np *plan.Plan) []FieldChange {
	get := func(p *plan.Plan) map[string]map[string]string {
		m := map[string]map[string]string{}
		if len(p.Variants) > 0 {
			for _, r := range p.Variants[0].Roles {
				if r.Prompt != nil {
					m[r.Name] = r.Prompt.TaskCriteria
				}
			}
		}
		return m
	}
	o, n := get(op), get(np)
	var out []FieldChange
	for _, role := range sortedKeys(o) {
		nt, ok := n[role]
		if !ok {
			continue
		}
		ot := o[role]
		tasks := map[string]bool{}
		for t := range ot {
			tasks[t] = true
		}
		for t := range nt {
			tasks[t] = true
		}
		for _, t := range sortedKeys(tasks) {
			a, inA := ot[t]
			b, inB := nt[t]
			if a == b && inA == inB {
				continue
			}
			out = append(out, FieldChange{Path: "role." + role + ".prompt.task_criteria." + t, Kind: Changed, Old: describeOpt(inA, a), New: describeOpt(inB, b)})
		}
	}
	return out
}

func describeOpt(ok bool, text string) string {
	if !ok {
		return "none"
	}
	return describeText("criteria_dir", text)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func describeText(from, text string) string {
	h := sha256.Sum256([]byte(text))
	return from + ", sha256 " + hex.EncodeToString(h[:6])
}
