package plan

import "github.com/assay-lang/assay/lang/diag"

// Missing is what a user must supply before a run: a task-suite
// manifest's placeholder ({"fill": ...}), or the suite's checkout. The
// figures need none of it, so validate, estimate and plan pass; check and
// run refuse a plan that lists one (compiler.Unready). Field is the
// manifest field ("baseline", "bounds.low", "evaluate",
// "scaffold.editable") or "suite_root"; Fill says what to write there.
type Missing struct {
	Field string     `json:"field"`
	Fill  string     `json:"fill"`
	At    diag.Range `json:"source"`
}
