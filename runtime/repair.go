package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// A source-mode candidate whose real run fails in its own code (the
// trainer's StatusError: a traceback, a non-zero exit; not a time limit,
// not an infeasible result) goes back to the builder that built it, as
// the critics paper's implementer gets up to three repairs of a run's
// error (its appendix G.3). The builder is shown the failing commit's
// files and the end of the run's output, answers with a patch of that
// commit, and the repair is built as a new commit on it (the candidate's
// ref moves to it) and run again, under the key RUN/repair/N. Repairs of
// runs and of builds share the source's repairs: attempt N is the
// builder's N-th repair of the candidate, whatever failed before it, so a
// candidate makes at most 1 + repairs builder calls and as many real runs.
// Each repair's run is a real run, reserved like any other: the real-run
// cap holds it, and a repair the budget cannot run leaves the candidate
// as its failed run left it (infeasible). The candidate is its last
// commit; status lists every attempt (Candidate.Attempts).

// fixer says who repairs a source-mode candidate's run: the builder role
// that built it, the loop that counts its repairs ("" outside a loop), the
// key of its builder call (KEY/implement), and for a repair's run the
// builder attempt that built its program (repaired set; otherwise the
// candidate's journaled record says).
type fixer struct {
	builder, loop, implement string
	attempt                  int
	repaired                 bool
	// summarizer is the role that summarized the candidate's first build
	// for its critic ("" for none): it summarizes each repair too.
	summarizer string
}

// summarizing is f with summarizer summarizing its repairs (f may be nil).
func (f *fixer) summarizing(summarizer string) *fixer {
	if f != nil {
		f.summarizer = summarizer
	}
	return f
}

// fixerFor is the fixer of a candidate of task t built by builder under
// the call key implement; nil where no repair can be made (knob mode, no
// builder).
func fixerFor(builder, loop, implement string, t *taskInfo) *fixer {
	if builder == "" || t == nil || t.src == nil {
		return nil
	}
	return &fixer{builder: builder, loop: loop, implement: implement}
}

// failureTailBytes bounds the end of a failed run's output that a repair
// is told.
const failureTailBytes = 4 << 10

// attemptPrefix keys the journal record of a repair made after a run
// that failed (attemptRecord).
const attemptPrefix = "attempt/"

// attemptRecord is what the journal keeps of a repair made after a run
// failed in the candidate's code: the candidate, the run that failed, the
// commit the repair built and the run that measures it, and the diffstat
// from the candidate's parent to that commit.
type attemptRecord struct {
	Candidate string `json:"candidate"`
	Failed    string `json:"failed_run"`
	Attempt
	gitrepo.DiffStat
}

// Attempt is one program a repaired candidate was, in order: its commit,
// the builder repair that made it (0: its first build), and the real run
// that measured it with how that run ended (Status, Reason, Metric are
// filled from the run's result when status is read).
type Attempt struct {
	Commit string   `json:"commit"`
	Repair int      `json:"repair,omitempty"`
	Run    string   `json:"run"`
	Status string   `json:"status,omitempty"`
	Reason string   `json:"reason,omitempty"`
	Metric *float64 `json:"metric,omitempty"`
}

// repairRuns repairs each run of runs whose outcome in out is an error
// in a source-mode candidate's code, while the candidate has repairs
// left: every such candidate's repair is built (in parallel, at its
// builder's concurrency), and the repairs that built run as one batch
// through runReal, which repairs those that fail again in turn (each
// level one more builder attempt, so at most the source's repairs deep).
// out[i] becomes the outcome of the last attempt that ran (Repaired holds
// its program); a candidate whose repairs are spent, or whose repair's
// run the budget cannot make, keeps its failed outcome.
func (m sourceMode) repairRuns(sc scope, runs []realRun, out []outcome) error {
	r := m.s
	var at []int
	for i, o := range out {
		if o.Errored && runs[i].fix != nil {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	next := make([]realRun, len(at))
	built := make([]bool, len(at))
	err := parallel(len(at), r.concurrency(runs[at[0]].fix.builder), func(k int) error {
		i := at[k]
		rr, ok, err := m.repairRun(runs[i], out[i].Result)
		next[k], built[k] = rr, ok
		return err
	})
	if err != nil {
		return err
	}
	var again []realRun
	var which []int
	for k, i := range at {
		if built[k] {
			again = append(again, next[k])
			which = append(which, i)
		}
	}
	if len(again) == 0 {
		return nil
	}
	got, err := r.runReal(sc, again)
	if err != nil {
		return err
	}
	for k, i := range which {
		o := got[k]
		if o.Skipped {
			continue // no budget for the repair's run: the failed run stands
		}
		if o.Repaired == nil {
			p := again[k].Proposal
			o.Repaired, o.repairKey = &p, again[k].Key
		}
		out[i] = o
	}
	return nil
}

// repairRun asks the builder to repair the program that failed's run
// measured, told the end of the run's output, and builds the repair on
// that commit. It returns the repair's run (key RUN/repair/N, where N is
// the builder attempt that built it), and false when the candidate's
// repairs are spent without a repair that builds.
func (m sourceMode) repairRun(failed realRun, res *plugins.RunResult) (realRun, bool, error) {
	r := m.s
	fix, t, p := failed.fix, failed.Task, failed.Proposal
	c, ok := m.builtAt(t.src, fix.implement)
	if !ok {
		return realRun{}, false, fmt.Errorf("%w: candidate %s ran, but neither this run nor its journal built it", errPermanent, fix.implement)
	}
	n := c.attempt
	if fix.repaired {
		n = fix.attempt
	}
	if n >= t.src.src.Repairs {
		return realRun{}, false, nil
	}
	if fix.loop != "" {
		r.measured.loop(fix.loop, func(ml *MeasuredLoop) { ml.RunRepairs++ })
	}
	a, err := m.buildAttempts(fix.builder, fix.loop, fix.implement, t, p, attemptFrom{parent: p.Commit, n: n + 1, failure: runFailure(p.Commit, res)})
	if err != nil || !a.ok {
		return realRun{}, false, err
	}
	// The repair is the candidate's whole change: what a summary, a
	// record or a pair of it describes, not the fix alone.
	whole, err := t.src.repo.Diff(r.ctx, c.parent, a.p.Commit)
	if err != nil {
		return realRun{}, false, err
	}
	a.p.Patch = whole
	key := baseRunKey(failed.Key) + fmt.Sprintf("/repair/%d", a.n)
	if err := m.journalAttempt(t, fix, c.parent, failed.Key, key, a); err != nil {
		return realRun{}, false, err
	}
	if err := m.summarizeRepair(fix, t, key, a.p); err != nil {
		return realRun{}, false, err
	}
	rr := failed
	f := *fix
	f.attempt, f.repaired = a.n, true
	rr.Key, rr.Proposal, rr.fix = key, a.p, &f
	return rr, true, nil
}

// summarizeRepair asks the summarizer that summarized the candidate's
// first build to summarize its repair p, the whole change the repair's
// run (key run) measures, under SummaryKey: a pair or a continual
// critic's example of the candidate then carries the summary of the
// program measured, not of the first attempt. A summary that failed or
// could not be read is none, as a candidate's first one is.
func (m sourceMode) summarizeRepair(fix *fixer, t *taskInfo, run string, p plugins.Proposal) error {
	if fix.summarizer == "" {
		return nil
	}
	var resp payload.SummarizeResponse
	err := m.s.complete(fix.summarizer, SummaryKey(strings.TrimSuffix(fix.implement, "/implement"), run), payload.SummarizeRequest{Task: t.Name, Proposal: p}, &resp)
	if err != nil && !errors.Is(err, errCallFailed) && !errors.Is(err, errUnparsed) {
		return err
	}
	return nil
}

// SummaryKey is the journal key of the summary of the program that the
// real run runKey of candidate measured: the candidate's first build's,
// CANDIDATE/summarize, or for a repair's run (RUN/repair/N, retried or
// not) the repair's, CANDIDATE/repair/N/summarize.
func SummaryKey(candidate, runKey string) string {
	i := strings.LastIndex(runKey, "/repair/")
	if i < 0 {
		return candidate + "/summarize"
	}
	repair, _, _ := strings.Cut(runKey[i:], "~")
	return candidate + repair + "/summarize"
}

// baseRunKey is the key of the run a repair repairs, before any repair:
// a repair of a repair is keyed from the candidate's first run.
func baseRunKey(key string) string {
	if i := strings.Index(key, "/repair/"); i >= 0 {
		return key[:i]
	}
	return key
}

// builtAt is where the candidate whose builder call is key was built: as
// this process built it, or as the journal recorded it when it opened.
func (m sourceMode) builtAt(sp *seedProgram, key string) (builtAt, bool) {
	sp.builtMu.Lock()
	b, ok := sp.built[key]
	sp.builtMu.Unlock()
	if ok {
		return b, true
	}
	var c Candidate
	d, ok := m.s.j.Call(journal.KindCall, candidatePrefix+key)
	if !ok || json.Unmarshal(d, &c) != nil {
		return builtAt{}, false
	}
	return builtAt{parent: c.Parent, attempt: c.Repairs}, true
}

// journalAttempt records a repair after a failed run once (a resume
// repairs the same way and finds it recorded).
func (m sourceMode) journalAttempt(t *taskInfo, fix *fixer, parent, failed, run string, a attempted) error {
	r := m.s
	jkey := attemptPrefix + run
	if _, ok := r.j.Call(journal.KindCall, jkey); ok {
		return nil
	}
	st, err := t.src.repo.Stat(r.ctx, parent, a.p.Commit)
	if err != nil {
		return err
	}
	rec := attemptRecord{Candidate: strings.TrimSuffix(fix.implement, "/implement"), Failed: failed,
		Attempt: Attempt{Commit: a.p.Commit, Repair: a.n, Run: run}, DiffStat: st}
	return r.j.Append(journal.KindCall, jkey, rec)
}

// runFailure is what the builder is told of a run of commit that failed
// in its code: the trainer's reason and the end of the run's standard
// error (the command trainer's Logs section of it, else the end of Logs),
// at most failureTailBytes.
func runFailure(commit string, res *plugins.RunResult) string {
	reason, logs := "the run failed", ""
	if res != nil {
		if res.Reason != "" {
			reason = res.Reason
		}
		logs = res.Logs
		if _, after, ok := strings.Cut(logs, "--- stderr (end) ---\n"); ok {
			logs, _, _ = strings.Cut(after, "\n--- stdout (end) ---")
		}
	}
	logs = strings.TrimSpace(logs)
	if len(logs) > failureTailBytes {
		cut := len(logs) - failureTailBytes
		for cut < len(logs) && !utf8.RuneStart(logs[cut]) {
			cut++
		}
		logs = "..." + logs[cut:]
	}
	msg := fmt.Sprintf("your last change built as commit %.12s, the program shown, but its real run failed: %s.", commit, strings.TrimSpace(reason))
	if logs != "" {
		msg += " The end of its standard error:\n" + logs + "\n"
	}
	return msg + " Fix the program shown, keeping the idea: answer with a patch against it."
}

// repaired adds a repair made after a failed run to c: the candidate
// becomes the repair's commit, and its attempts list the commit it was
// (with the run that failed) before the repair.
func (c *Candidate) repaired(a attemptRecord) {
	if len(c.Attempts) == 0 {
		c.Attempts = []Attempt{{Commit: c.Commit, Repair: c.Repairs, Run: a.Failed}}
	}
	c.Attempts = append(c.Attempts, a.Attempt)
	c.Commit, c.Repairs, c.DiffStat = a.Commit, a.Repair, a.DiffStat
}
