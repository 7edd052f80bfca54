package compiler

import (
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/lang/spec"
)

// checkFormulas parses and type-checks every formula of every variant:
// reward values and infeasible values as numbers, critic routes as bools.
// Diagnostics point inside the formula text (package formula offsets them).
func checkFormulas(c *compilation) {
	for _, v := range c.variants {
		for _, r := range v.spec.Rewards {
			checkFormula(c, r.Value, formula.RewardVars, formula.Number)
			checkFormula(c, r.Infeasible, formula.InfeasibleVars, formula.Number)
		}
		for _, cr := range v.spec.Critics {
			checkFormula(c, cr.Route, formula.RouteVars, formula.Bool)
		}
	}
}

func checkFormula(c *compilation, f spec.Formula, vars map[string]formula.Type, want formula.Type) *formula.Expr {
	if !f.Set {
		return nil
	}
	e, ds := formula.Parse(f.V, quoteRange(f.Range))
	c.add(ds)
	if e == nil {
		return nil
	}
	ds = e.Check(vars, want)
	c.add(ds)
	if ds.HasErrors() {
		return nil
	}
	if c.checked == nil {
		c.checked = map[string]*formula.Expr{}
	}
	c.checked[f.V] = e
	return e
}

// quoteRange converts a formula's range as the spec model defines it (the
// start of the formula text, see spec.Formula) to what formula.Parse takes
// (the attribute's quoted value, whose text starts one column later).
func quoteRange(r diag.Range) diag.Range {
	if !r.Valid() || r.Start.Column < 2 {
		return r
	}
	r.Start.Column--
	r.Start.Byte--
	return r
}
