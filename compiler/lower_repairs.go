package compiler

import (
	"math"

	"github.com/assay-lang/assay/lang/spec"
)

// Repairs of runs. A source-mode candidate whose real run fails in its
// own code goes back to its builder and runs again as a new commit, up to
// its source's repairs (which its build's repairs share), so each real
// run of a candidate a builder built on a source-mode task may become
// 1 + repairs real runs. No assumption says how often a run fails, so,
// as builder repairs are, they are priced at the high figure alone: a
// phase's real-run high counts every such run repaired every time, and
// at the high corner of the assumptions (scHigh) the budget solve counts
// them too, so a loop that spends the budget has its fewest steps there
// (the repairs spend its runs). Builder calls need nothing more: a
// candidate's build and run repairs share its repairs, so it makes at
// most 1 + repairs builder calls, which addBuilds' high already counts.
// A summarizer summarizes each repair of a run as it did the first build
// (so a pair describes the program measured), so its high counts every
// summarized candidate repaired every time too.
// Hold-backs leave the repair runs out (holdBack): a later phase is held
// its first runs, and a repair the budget cannot run stops at the cap.

// runRepairs is, per environment, the most repairs a run of a
// source-mode candidate on it can get (environments in knob mode have
// none).
func (lv *lowering) runRepairs() map[string]int {
	out := map[string]int{}
	for _, e := range lv.s.Environments {
		n := 0
		if len(e.TaskList) == 0 && e.Source != nil {
			n = sourceRepairs.of(e.Source.Repairs)
		}
		for _, t := range e.TaskList {
			if src := mergeSource(e, t); src != nil {
				n = max(n, sourceRepairs.of(src.Repairs))
			}
		}
		if n > 0 {
			out[e.Name] = n
		}
	}
	return out
}

// repairHigh is the factor of a phase's real runs of candidates in
// scenario sc when builder builds them: 1 + the most repairs any
// environment's runs get at scHigh, 1 elsewhere.
func (lv *lowering) repairHigh(builder spec.Ref, sc int) float64 {
	if sc != scHigh || !builder.Set {
		return 1
	}
	n := 0
	for _, r := range lv.runRepairs() {
		n = max(n, r)
	}
	return float64(1 + n)
}

// repairing marks r as a phase whose candidates builder builds: its
// real runs on a source-mode environment may be repaired.
func (r *rawPhase) repairing(lv *lowering, builder spec.Ref) {
	if builder.Set {
		r.runRepairs = lv.runRepairs()
	}
}

// withRepairs is high, a high count of r's real runs on env, with every
// run repaired every time it can be, and the runs that adds.
func (r *rawPhase) withRepairs(env string, high float64) (float64, float64) {
	n := r.runRepairs[env]
	if n == 0 || math.IsInf(high, 1) {
		return high, 0
	}
	extra := high * float64(n)
	return high + extra, extra
}
