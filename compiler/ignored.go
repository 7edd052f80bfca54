package compiler

import (
	"fmt"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
)

// ignoredCodes are the diagnostics that say a field the spec writes takes
// no effect (it is unused, shadowed or does not apply). In a sweep such a
// field may take effect in some variants and not in others (a critic's tie
// rule at k = 1 of a k sweep); it is a mistake only when no variant reads it.
var ignoredCodes = map[string]bool{
	CodeNotApplicable:   true,
	CodeUnscreened:      true,
	CodeClipUnused:      true,
	CodeNormalizeUnused: true,
	CodeDiversityUnused: true,
	CodeTieUnused:       true,
	CodeThresholdUnused: true,
	CodeSlurmLocal:      true,
	CodeShadowed:        true,
	CodePresetUnused:    true,
	CodeUnusedBlock:     true,
}

// ignoredKey names one written field's refusal across variants: its code
// and the field's position, or, for a value a sweep axis writes (a
// different range in each variant), the axis.
type ignoredKey struct{ code, at string }

// ignoredSet is what the variants said about one field.
type ignoredSet struct {
	diags    []*diag.Diagnostic
	variants map[*variant]bool
}

// ignore records a does-not-apply error of variant v, to be settled once
// every variant has been checked; false when d is not one to hold back.
func (c *compilation) ignore(v *variant, d *diag.Diagnostic) bool {
	if v == nil || len(c.variants) < 2 || d.Severity != diag.Error || !ignoredCodes[d.Code] {
		return false
	}
	key := ignoredKey{d.Code, c.axisAt(d.Range)}
	if c.ignored == nil {
		c.ignored = map[ignoredKey]*ignoredSet{}
	}
	set := c.ignored[key]
	if set == nil {
		set = &ignoredSet{variants: map[*variant]bool{}}
		c.ignored[key] = set
		c.ignoredOrder = append(c.ignoredOrder, key)
	}
	set.diags = append(set.diags, d)
	set.variants[v] = true
	return true
}

// axisAt is the key position of r: the axis one of whose values sits at r
// (each variant sees a different one), or r.
func (c *compilation) axisAt(r diag.Range) string {
	if sw := c.spec.Sweep; sw != nil {
		for _, ax := range sw.Axes {
			for _, v := range ax.Values {
				if v.Range == r {
					return "axis " + ax.Name
				}
			}
		}
	}
	return fmt.Sprintf("%s:%d:%d-%d:%d", r.Filename, r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
}

// settleIgnored reports each held-back refusal: an error when every
// variant ignores the field, else one warning that names the variants that
// ignore it, since the sweep needs it in the others.
func settleIgnored(c *compilation) {
	for _, key := range c.ignoredOrder {
		set := c.ignored[key]
		if len(set.variants) == len(c.variants) {
			for _, d := range set.diags {
				c.add(d)
			}
			continue
		}
		var names []string
		for _, v := range c.variants {
			if set.variants[v] {
				names = append(names, v.name)
			}
		}
		d := set.diags[0]
		c.add(diag.Warnf(CodeVariantsIgnore, d.Range, "%d of %d variants ignore this (%s): %s", len(names), len(c.variants), strings.Join(names, "; "), d.Summary).
			WithDetail("It takes effect in the other variants, so the sweep keeps it; in these it changes nothing (%s would be refused in a spec of its own).", d.Code))
	}
}
