package runtime

import "sync/atomic"

// tally is what a run counts: every phase changes it only through these
// methods, so a count cannot be set back or double-counted by a phase
// that reaches into the service.
type tally struct {
	llmCalls    atomic.Int64
	failedCalls atomic.Int64
	steps       int
	candidates  int
	updates     int
	finished    int
	infeasible  int
	bestGain    float64
	hasBest     bool
}

// step counts one more step of a loop that steps one at a time.
func (t *tally) step() { t.steps++ }

// reachStep raises the step count to n (a round every task has run).
func (t *tally) reachStep(n int) { t.steps = max(t.steps, n) }

// candidate counts n built candidates.
func (t *tally) candidate(n int) { t.candidates += n }

// update counts one policy update.
func (t *tally) update() { t.updates++ }

// outcome counts one finished or infeasible real run; a finished run
// that is not a baseline may be the best gain so far.
func (t *tally) outcome(o outcome, baseline bool) {
	if o.Infeasible {
		t.infeasible++
		return
	}
	t.finished++
	if !baseline && (!t.hasBest || o.Gain > t.bestGain) {
		t.bestGain, t.hasBest = o.Gain, true
	}
}

// call counts one LLM call.
func (t *tally) call() { t.llmCalls.Add(1) }

// callFailed counts one more failed call in a row and returns how many.
func (t *tally) callFailed() int64 { return t.failedCalls.Add(1) }

// callSucceeded ends a run of failed calls.
func (t *tally) callSucceeded() { t.failedCalls.Store(0) }

// calls is how many LLM calls were counted.
func (t *tally) calls() int { return int(t.llmCalls.Load()) }

// best is the best gain of a finished run that is not a baseline (0 if none).
func (t *tally) best() float64 { return t.bestGain }
