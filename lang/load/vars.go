package load

import (
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// A chain of specs joined by extends has one value per variable. Each file
// is evaluated on its own, so the files that extend a base hand it their
// declarations: a variable declared again with a new default takes that
// default in the base too, never the base's own default silently. -var and
// -var-file apply over both; a redeclaration may not change the type.

// inheritVars returns the declarations a base spec inherits: those of the
// files that extend it (inherited, one per name) and of the file that names
// the base (own), one per name. A name keeps the default and the type of
// the outermost file that gives one: the spec the user named wins over the
// specs it extends, as its attributes do.
func inheritVars(inherited, own []*spec.Variable) []*spec.Variable {
	if len(own) == 0 {
		return inherited
	}
	out := make([]*spec.Variable, 0, len(inherited)+len(own))
	at := map[string]int{}
	for _, v := range inherited {
		at[v.Name] = len(out)
		out = append(out, v)
	}
	for _, v := range own {
		i, ok := at[v.Name]
		if !ok {
			at[v.Name] = len(out)
			out = append(out, &spec.Variable{Name: v.Name, NameRange: v.NameRange, Type: v.Type, Default: v.Default})
			continue
		}
		near := *out[i]
		if !near.Default.Set {
			near.Default = v.Default
		}
		if !near.Type.Set {
			near.Type = v.Type
		}
		out[i] = &near
	}
	return out
}

// retyped reports each variable of a spec (own) declared with another type
// than the spec it extends (base, merged) gives it: the base's uses were
// written for its type.
func retyped(own, base []*spec.Variable) diag.Diagnostics {
	types := map[string]*spec.Variable{}
	for _, v := range base {
		if v.Type.Set {
			types[v.Name] = v
		}
	}
	var ds diag.Diagnostics
	for _, v := range own {
		b := types[v.Name]
		if b == nil || !v.Type.Set || v.Type.V == b.Type.V {
			continue
		}
		ds = append(ds, diag.Errorf(codeVarType, v.Type.Range, "variable %q is declared %s in %s, not %s", v.Name, b.Type.V, b.Type.Range, v.Type.V).
			WithDetail("A spec that extends another may declare a variable again to give it a new default, which then applies in every file of the chain, but not a new type: write type = %s, or leave the type out.", b.Type.V))
	}
	return ds
}

// baseDefaults returns, for each variable a spec declares without a
// default (own) and so reported as having no value (ds), the value the base
// chain gives it, as a default: a redeclaration may leave the value to the
// base.
func baseDefaults(own, base []*spec.Variable, ds diag.Diagnostics) []*spec.Variable {
	missing := map[string]bool{}
	for _, d := range ds {
		if d.Code == codeVarRequired {
			for _, v := range own {
				if d.Range == v.NameRange {
					missing[v.Name] = true
				}
			}
		}
	}
	var out []*spec.Variable
	for _, v := range base {
		if missing[v.Name] && v.Value.Set {
			out = append(out, &spec.Variable{Name: v.Name, Type: v.Type, Default: v.Value})
		}
	}
	return out
}
