package compiler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// maxUnready bounds the placeholders Unready lists one by one; the rest
// are counted in one more error.
const maxUnready = 40

// Unready is what a plan needs before check or run can use it: each
// variable a run needs that is empty (its supply), each environment's unnamed suite checkout and each suite task's placeholder,
// one error each at the spec or manifest position that says what to
// write (every variant's, once). Validate, estimate and plan need none of
// it: the figures do not read a path, a baseline or a bound.
func Unready(p *plan.Plan) diag.Diagnostics {
	var ds diag.Diagnostics
	seen := map[string]bool{}
	more := 0
	add := func(what string, m plan.Missing) {
		key := m.At.String() + "\x00" + m.Field
		if seen[key] {
			return
		}
		seen[key] = true
		if len(ds) >= maxUnready {
			more++
			return
		}
		if m.Field == "suite_root" {
			ds = append(ds, diag.Errorf(CodeSuiteUnfilled, m.At, "%s names no checkout of its suite's task scaffolds: suite_root is empty", what).
				WithDetail("give %s", m.Fill))
			return
		}
		ds = append(ds, diag.Errorf(CodeSuiteUnfilled, m.At, "%s: %s is a placeholder, not written yet", what, m.Field).
			WithDetail("replace this {\"fill\": ...} with %s", m.Fill))
	}
	for _, m := range p.Missing {
		key := m.At.String() + "\x00" + m.Field
		if !seen[key] {
			seen[key] = true
			ds = append(ds, diag.Errorf(CodeUnsupplied, m.At, "variable %q is empty, and a run needs it", strings.TrimPrefix(m.Field, "var.")).
				WithDetail("give %s: -var %s=VALUE, or a -var-file", m.Fill, strings.TrimPrefix(m.Field, "var.")))
		}
	}
	for _, v := range p.Variants {
		for _, e := range v.Envs {
			for _, m := range e.Missing {
				add(fmt.Sprintf("environment %q", e.Name), m)
			}
			for _, t := range e.Tasks {
				for _, m := range t.Missing {
					add(fmt.Sprintf("task %q", t.Name), m)
				}
			}
		}
	}
	if more > 0 {
		d := ds[len(ds)-1]
		ds = append(ds, diag.Errorf(CodeSuiteUnfilled, d.Range, "and %d more placeholder(s) of the suite are not written yet", more).
			WithDetail("every {\"fill\": ...} of the manifest is refused until it holds a value; assay plan --json SPEC lists them all (each task's missing)"))
	}
	return ds
}

// unsupplied are the variables of s a run needs that are still empty: a
// string or list variable with a supply whose value is "" or [], by name.
func unsupplied(s *spec.Spec) []plan.Missing {
	var out []plan.Missing
	for _, v := range s.Variables {
		if v == nil || !v.Supply.Set || !emptyValue(v.Value.V) {
			continue
		}
		out = append(out, plan.Missing{Field: "var." + v.Name, Fill: v.Supply.V, At: v.NameRange})
	}
	// By name: front ends and extends order variables differently.
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func emptyValue(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	}
	return false
}

// checkSupply refuses a supply on a variable that cannot be empty: only
// an empty string or list is a value still to supply.
func checkSupply(c *compilation) {
	for _, v := range c.spec.Variables {
		if v == nil || !v.Supply.Set {
			continue
		}
		if t := v.Type.V; t == "number" || t == "bool" || strings.TrimSpace(v.Supply.V) == "" {
			c.add(diag.Errorf(CodeNotApplicable, v.Supply.Range, "variable %q: supply says what a run needs a string or list variable to hold, and needs a text", v.Name).
				WithDetail("a %s variable always holds a value; remove supply, or make the variable a string whose default is \"\"", t))
		}
	}
}
