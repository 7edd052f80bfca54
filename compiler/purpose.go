package compiler

import (
	"strings"

	"github.com/assay-lang/assay/lang/diag"
)

// purpose refuses a spec that would do nothing: with no loop, no
// evaluation and no seed records, a run makes no plugin call at all and
// "finishes" at once, which is never what its author meant (an empty file,
// a file of comments, or a base spec given where the extending one was
// meant). It is reported at the start of the file.
func purpose(c *compilation) {
	s := c.spec
	if len(s.Loops) > 0 || s.Evaluation != nil || len(s.CriticEvals) > 0 || (s.Records != nil && s.Records.SeedRuns.V > 0) {
		return
	}
	at := s.Range
	if len(s.Files) > 0 {
		at = diag.Range{Filename: s.Files[0]}
	}
	at.Start, at.End = diag.Pos{Line: 1, Column: 1}, diag.Pos{Line: 1, Column: 1}
	var has []string
	for _, x := range []struct {
		n    int
		what string
	}{{len(s.Plugins), "plugins"}, {len(s.Environments), "environments"}, {len(s.Roles), "roles"}} {
		if x.n > 0 {
			has = append(has, x.what)
		}
	}
	d := diag.Errorf(CodeNothingToDo, at, "the spec does nothing: it has no loop, no evaluation and no seed records")
	if len(has) > 0 {
		d.Summary += "; it declares only " + strings.Join(has, ", ")
	}
	d.WithDetail(`Add a loop (e.g. loop "policy" { preset = "dapo" }) or an evaluation block, so that a run makes real runs or LLM calls; or, for a base meant to be extended, validate the spec that extends it.`)
	c.add(d)
}
