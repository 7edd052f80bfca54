package runtime

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
)

// StateStoppedAtCap is a run that ran to its end, but a budget cap stopped
// or shrank one of its phases or more (Result.Cuts says which and why): its
// figures are not the plan's. `assay run` exits with a code of its own.
const StateStoppedAtCap = "stopped_at_cap"

// PhaseCut is a phase a budget cap stopped before it was done, or left
// with fewer real runs than the plan gives it.
type PhaseCut struct {
	Phase  string `json:"phase"`
	Reason string `json:"reason"`
}

// cutsReason is the one-line reason of a run that caps cut.
func cutsReason(cuts []PhaseCut) string {
	parts := make([]string, len(cuts))
	for i, c := range cuts {
		parts[i] = fmt.Sprintf("phase %s %s", c.Phase, c.Reason)
	}
	return "a budget cap cut the plan short: " + strings.Join(parts, "; ")
}

// cutLog is the phases a cap stopped or shrank, and why each run key that
// got no reservation got none.
type cutLog struct {
	phases  []*plan.Phase
	loops   map[string]*plan.Loop
	mu      sync.Mutex
	cuts    []PhaseCut
	skipped map[string]string
}

// cut notes that a cap stopped or shrank a phase, once per phase (the
// first reason). A loop that spends the budget ends at a cap by design:
// that is its plan, not a cut.
func (r *cutLog) cut(phase, why string) {
	for _, ph := range r.phases {
		if ph.Name == phase && ph.RL != nil {
			if l := r.loops[ph.RL.Loop]; l != nil && l.UntilBudget {
				return
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cuts {
		if c.Phase == phase {
			return
		}
	}
	r.cuts = append(r.cuts, PhaseCut{Phase: phase, Reason: why})
}

// has reports whether a cap cut phase.
func (r *cutLog) has(phase string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.cuts, func(c PhaseCut) bool { return c.Phase == phase })
}

// list returns the phases caps cut, in the order they were cut.
func (r *cutLog) list() []PhaseCut {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]PhaseCut(nil), r.cuts...)
}

// skip records why a run key got no reservation, notes the cut of the
// current phase, and returns false.
func (r *cutLog) skip(sc scope, key, why string) bool {
	r.mu.Lock()
	r.skipped[key] = why
	r.mu.Unlock()
	r.cut(sc.phase, "got fewer real runs than the plan gives it: "+why)
	return false
}

// skipReason says why run key got no reservation.
func (r *cutLog) skipReason(key string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if why, ok := r.skipped[key]; ok {
		return why
	}
	return "no budget was left for it"
}

// realRunCapReason says why the real-run cap c, with left runs left,
// leaves no run for this phase.
func (sc scope) realRunCapReason(c, left int) string {
	if sc.floor > 0 && left > 0 {
		return fmt.Sprintf("the real-run cap of %d left no run for it (%d used, %d held back for later phases)", c, c-left, sc.floor)
	}
	return fmt.Sprintf("the real-run cap of %d left no run for it (all %d used)", c, c-left)
}
