package estimate

import (
	"math"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
)

// Diagnostic codes of the cap check.
const (
	CodeCapExceeded = "E_CAP_EXCEEDED"
	CodeCapAtRisk   = "W_CAP_AT_RISK"
)

// Codes documents the cap check's codes.
var Codes = []diag.Code{
	{Code: CodeCapExceeded, Meaning: "the estimate breaks a hard budget cap (real runs, GPU-hours, dollars or wall-clock hours): validate, estimate and run refuse the spec"},
	{Code: CodeCapAtRisk, Meaning: "warning: the expected figure is within a budget cap, but the high end of the estimate is not"},
}

// CheckCaps compares the estimate with the hard caps of b: an error when the
// expected figure breaks a cap, a warning when only the high one does. With
// a sweep each variant is checked on its own, since each runs as its own
// experiment under the caps.
func (r *Report) CheckCaps(b plan.Budget) diag.Diagnostics {
	if len(r.Variants) == 0 {
		return checkTotals(b, &r.Totals, "")
	}
	// Variants that break a cap by the same figures (a swept field that
	// changes no cost) get one diagnostic that names them all, not one
	// identical line each.
	type group struct {
		d     *diag.Diagnostic
		names []string
	}
	var order []*group
	byKey := map[string]*group{}
	for _, v := range r.Variants {
		for _, d := range checkTotals(b, &v.Totals, variantMark) {
			key := d.Code + "\x00" + d.Summary
			g := byKey[key]
			if g == nil {
				g = &group{d: d}
				byKey[key] = g
				order = append(order, g)
			}
			g.names = append(g.names, v.Name)
		}
	}
	var ds diag.Diagnostics
	for _, g := range order {
		which := "variant " + g.names[0]
		if len(g.names) > 1 {
			which = "variants " + strings.Join(g.names, "; ")
		}
		g.d.Summary = strings.Replace(g.d.Summary, variantMark, which, 1)
		ds = ds.Append(g.d)
	}
	return ds
}

// variantMark stands for the variant names in a summary until variants
// with the same figures are grouped.
const variantMark = "\x00variant\x00"

func checkTotals(b plan.Budget, t *Totals, variant string) diag.Diagnostics {
	var ds diag.Diagnostics
	where := ""
	if variant != "" {
		where = " (" + variant + ")"
	}
	check := func(name, what string, cap float64, c plan.Count, f func(float64) string) {
		if cap <= 0 {
			return
		}
		at := b.Source[name]
		switch {
		case c.Expected > cap:
			over := c.Expected - cap
			ds = ds.Append(diag.Errorf(CodeCapExceeded, at, "estimate breaks budget.%s%s: expected %s%s, cap %s, over by %s (%.0f%%)",
				name, where, f(c.Expected), what, f(cap), f(over), 100*over/cap).
				WithDetail("raise budget.%s, or shrink the experiment", name))
		case c.High > cap:
			upTo := "up to " + f(c.High)
			if math.IsInf(c.High, 1) {
				upTo = "nothing bounds it"
			}
			ds = ds.Append(diag.Warnf(CodeCapAtRisk, at, "budget.%s%s may be exceeded: expected %s%s, but %s, cap %s",
				name, where, f(c.Expected), what, upTo, f(cap)).
				WithDetail("the runtime stops before the cap; raise it to be sure the run completes"))
		}
	}
	check("real_runs", " real runs", float64(b.RealRuns), t.uncapped.runs, FormatNumber)
	check("gpu_hours", " GPU-hours", b.GPUHours, t.uncapped.gpuHours, FormatNumber)
	check("usd", "", b.USD, t.uncapped.usd, FormatUSD)
	check("wall_hours", " wall-clock hours", b.WallHours, t.uncapped.wall, FormatNumber)
	return ds
}
