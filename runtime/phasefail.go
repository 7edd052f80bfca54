package runtime

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// StatePhaseFailed is a run that a phase ended because it measured
// nothing of what it is for: every build of the phase failed, every call
// of one of its roles was unparsed, or none of its candidates got a real
// run. Result.Failures says which phase, what, and the last distinct
// reasons; `assay run` exits with a code of its own. The phases after it
// do not run: they would spend the budget on nothing.
const StatePhaseFailed = "phase_failed"

// metaPhaseFailures is the journal meta key of a run's phase failures.
const metaPhaseFailures = "phase_failures"

// PhaseFailure is one way a phase measured nothing: What says it with its
// counts, Role names the role whose every call was unparsed, and Reasons
// are the last distinct failure messages, most recent first, with how
// often each came.
type PhaseFailure struct {
	Phase   string          `json:"phase"`
	What    string          `json:"what"`
	Role    string          `json:"role,omitempty"`
	Reasons []FailureReason `json:"reasons,omitempty"`
}

// FailureReason is a failure message and how often it came.
type FailureReason struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Bounds of what a phase keeps of its failure messages: each message's
// bytes, the distinct messages kept (the least recent goes first), and
// those a failure reports.
const (
	reasonBytes     = 300
	reasonsKept     = 16
	reasonsReported = 3
)

// failuresReason is the one-line reason of a run a phase failure ended.
func failuresReason(fs []PhaseFailure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.line()
	}
	return strings.Join(parts, "; ")
}

// line is f in one line: its phase, what, and its reasons with counts.
func (f PhaseFailure) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "phase %s: %s", f.Phase, f.What)
	for i, r := range f.Reasons {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%q x%d", sep, r.Message, r.Count)
	}
	return b.String()
}

// reasonTally keeps the last distinct failure messages with their counts,
// most recent last, at most reasonsKept.
type reasonTally []FailureReason

func (t *reasonTally) add(msg string) {
	msg = clipReason(msg)
	for i, r := range *t {
		if r.Message == msg {
			r.Count++
			*t = append(slices.Delete(*t, i, i+1), r)
			return
		}
	}
	if len(*t) >= reasonsKept {
		*t = slices.Delete(*t, 0, 1)
	}
	*t = append(*t, FailureReason{Message: msg, Count: 1})
}

// last is the tally's reasonsReported most recent reasons, most recent first.
func (t reasonTally) last() []FailureReason {
	out := slices.Clone(t[max(len(t)-reasonsReported, 0):])
	slices.Reverse(out)
	return out
}

// callWhy is why a failed or unparsed call failed, without the call's key
// (which would make every call's reason distinct).
func callWhy(err error) string {
	msg := err.Error()
	if _, why, ok := strings.Cut(msg, errCallFailed.Error()+": "); ok {
		return why
	}
	return msg
}

// clipReason is msg in one printable line of at most reasonBytes.
func clipReason(msg string) string {
	msg = plugins.Printable(strings.Join(strings.Fields(msg), " "))
	if msg == "" {
		return "no reason given"
	}
	if len(msg) <= reasonBytes {
		return msg
	}
	cut := reasonBytes
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "..."
}

// phaseWatch counts, for the phase that runs, what tells a phase that
// measured nothing from one that did: its builds, each role's calls and
// unparsed answers, and its candidates' real runs, with the failure
// messages of each. A resume counts the same from the journal, so it ends
// the same phase the same way.
type phaseWatch struct {
	mu                   sync.Mutex
	builds, buildsFailed int
	buildWhy             reasonTally
	roles                map[string]*roleWatch
	runs, ran            int
	runWhy               reasonTally
	// proposals counts the proposals the phase's proposers made; none
	// says why a proposer call made none (unread, failed, empty).
	proposals int
	none      reasonTally
}

type roleWatch struct {
	calls, unparsed int
	why             reasonTally
}

func newPhaseWatch() *phaseWatch { return &phaseWatch{roles: map[string]*roleWatch{}} }

func (w *phaseWatch) role(name string) *roleWatch {
	rw := w.roles[name]
	if rw == nil {
		rw = &roleWatch{}
		w.roles[name] = rw
	}
	return rw
}

// build counts one candidate's build; why is the last failure of one
// that did not build.
func (w *phaseWatch) build(ok bool, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.builds++
	if !ok {
		w.buildsFailed++
		w.buildWhy.add(why)
	}
}

// proposal counts one proposal a proposer made.
func (w *phaseWatch) proposal() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.proposals++
}

// noProposal counts a proposer call that made no proposal, and why.
func (w *phaseWatch) noProposal(why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.none.add(why)
}

// call counts one call of a role.
func (w *phaseWatch) call(role string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.role(role).calls++
}

// unparsed counts one call of a role whose answer could not be read.
func (w *phaseWatch) unparsed(role, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rw := w.role(role)
	rw.unparsed++
	rw.why.add(why)
}

// realRuns counts the outcomes of a phase's real runs of candidates
// (baselines and runs a cap left out are not counted): one ran when its
// trainer gave it a result, finished or infeasible.
func (w *phaseWatch) realRuns(runs []realRun, out []outcome) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, o := range out {
		if runs[i].baseline || o.Skipped {
			continue
		}
		w.runs++
		// A run that crashed in the candidate's code (no repair left)
		// measured nothing either; one that was infeasible did.
		if !o.Failed && !o.Errored {
			w.ran++
			continue
		}
		why := "the run failed on the infrastructure after its retries"
		if o.Errored {
			why = "the run failed in the candidate's code"
		}
		if o.Result != nil && o.Result.Reason != "" {
			why = o.Result.Reason
		}
		w.runWhy.add(why)
	}
}

// verdict is how phase ph measured nothing, if it did: every build
// failed, every call of a role was unparsed, or no candidate got a real
// run: every one a candidate was given failed, or, where the plan gives
// the phase real runs and no cap cut it, the phase made no candidate at
// all. A phase whose candidates were all measured before (a repeated
// proposal reuses its result) or that a critic routed none of is not
// one. cut says whether a cap cut a phase.
func (w *phaseWatch) verdict(ph *plan.Phase, cut func(string) bool) []PhaseFailure {
	if ph.Kind == plan.PhaseBaselines {
		return nil // a failed baseline stops the run itself
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []PhaseFailure
	if w.builds > 0 && w.buildsFailed == w.builds {
		out = append(out, PhaseFailure{Phase: ph.Name, What: fmt.Sprintf("every build failed (%d of %d)", w.buildsFailed, w.builds), Reasons: w.buildWhy.last()})
	}
	for _, name := range slices.Sorted(maps.Keys(w.roles)) {
		rw := w.roles[name]
		if rw.calls > 0 && rw.unparsed == rw.calls {
			out = append(out, PhaseFailure{Phase: ph.Name, Role: name, Reasons: rw.why.last(),
				What: fmt.Sprintf("every call of role %s was unparsed (%d of %d): its answers could not be read as the run reads them", name, rw.unparsed, rw.calls)})
		}
	}
	switch {
	case len(out) > 0 || w.ran > 0:
		return out
	case w.runs > 0:
		return []PhaseFailure{{Phase: ph.Name, Reasons: w.runWhy.last(),
			What: fmt.Sprintf("no candidate got a real run: each of the %d real runs of candidates failed, retries and repairs included", w.runs)}}
	case w.proposals > 0:
		return nil
	}
	low, phases := plannedRuns(ph)
	if low == 0 || slices.ContainsFunc(phases, cut) {
		return nil
	}
	return []PhaseFailure{{Phase: ph.Name, Reasons: w.none.last(),
		What: fmt.Sprintf("no candidate got a real run: the phase made no proposal (the plan gives it %d real runs at least)", low)}}
}

// plannedRuns is the least real runs the plan gives phase ph, its
// calibration rounds' included, and the names they are charged to.
func plannedRuns(ph *plan.Phase) (int, []string) {
	names := []string{ph.Name}
	var low float64
	for _, c := range ph.Calls.RealRuns {
		low += c.Low
	}
	if ph.RL != nil && ph.RL.Calibration != nil {
		for _, r := range ph.RL.Calibration.Rounds {
			names = append(names, r.Name)
			for _, c := range r.Calls.RealRuns {
				low += c.Low
			}
		}
	}
	return int(math.Ceil(low - 1e-9)), names
}
