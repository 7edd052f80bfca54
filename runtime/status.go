package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// States only status reports, besides the run states: the journal says
// nothing about the run.
const (
	// StateUnreadable: the journal is corrupt or not a journal; Reason
	// says why.
	StateUnreadable = "unreadable"
	// StateEmpty: the journal holds no run record (the run stopped before
	// it began, or its write-ahead log was lost).
	StateEmpty = "empty"
)

// Status is a run's state read from its journal. The real-run counts split
// RealRuns by outcome, each with one meaning (the same as in Totals):
// Finished ran to a metric, Infeasible was judged infeasible, Failed failed
// or was preempted, InFlight has no result yet.
type Status struct {
	ID      string `json:"id"`
	Plan    string `json:"plan"`
	Hash    string `json:"plan_hash,omitempty"`
	Variant string `json:"variant"`
	Seed    int64  `json:"seed"`
	State   string `json:"state"`
	// Reason says why a run failed, was interrupted, or cannot be read;
	// empty for a running or finished run.
	Reason string `json:"reason,omitempty"`
	// Holder is the process holding the run lock while one does.
	Holder *journal.Holder `json:"holder,omitempty"`
	Phase  string          `json:"phase,omitempty"`
	// CapStop says, for a run a budget cap cut short (state
	// stopped_at_cap, or failed after a cut), which phases it stopped or
	// shrank and why; Cuts lists them one by one.
	CapStop    string     `json:"stopped_at_cap,omitempty"`
	Cuts       []PhaseCut `json:"cut_phases,omitempty"`
	RealRuns   int        `json:"real_runs"` // reserved, counted against the budget
	Finished   int        `json:"finished_runs"`
	Infeasible int        `json:"infeasible_runs"`
	InFlight   int        `json:"in_flight_runs"`
	Failed     int        `json:"failed_runs"`

	// Failures are, for a run in state phase_failed, how the phase that
	// ended it measured nothing, each with its last distinct reasons.
	Failures []PhaseFailure `json:"failed_phases,omitempty"`

	// Errored ran and failed in the program's own code (StatusError): a
	// source-mode candidate's such run went back to its builder while
	// repairs were left (Candidate.Attempts), any other was retried.
	Errored int `json:"errored_runs"`
	// ReExecutions counts real runs started again because their trainer
	// had lost them (the process that ran them died): each may have spent
	// its GPU time twice.
	ReExecutions int         `json:"re_executions"`
	GPUHours     float64     `json:"gpu_hours"`
	RunUSD       float64     `json:"run_usd"`
	Budget       plan.Budget `json:"budget"`
	Totals       *Totals     `json:"totals,omitempty"`
	// The analyses: the world model's figures at each calibration round
	// (without their points) and the evaluation's, with its world-model
	// figures on held-out proposals. The critic's are in Totals.Measured.
	Calibration []CalibrationFigures `json:"calibration,omitempty"`
	Evaluation  []EvalFigures        `json:"evaluation,omitempty"`
	// Candidates are the built candidates of a run in source mode: each
	// one's idea, commit, ref and diffstat.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Sources are the seed programs a run in source mode began from.
	Sources []SeedSource `json:"sources,omitempty"`
	// Replay names the run this one replays; nil for a run that replays
	// none. Tasks are each task's record: its baseline metric, seed
	// commit and best program (record.go).
	Replay *ReplayOf    `json:"replay_of,omitempty"`
	Tasks  []TaskRecord `json:"tasks,omitempty"`
	// Meta is what the command recorded at the start (spec and lock paths).
	Meta map[string]string `json:"meta,omitempty"`
	// Provenance is what the run was made from (absent for runs recorded
	// without it).
	Provenance *Provenance `json:"provenance,omitempty"`
	Updated    time.Time   `json:"updated"`
}

// RunDir is the directory of run id under dir.
func RunDir(dir, id string) string {
	if dir == "" {
		dir = DefaultDir
	}
	return filepath.Join(dir, id)
}

// ReadStatus reads the status of run id in dir. A journal that holds no
// run gives state StateEmpty; one that cannot be read is an error
// (ListRuns lists it as StateUnreadable).
func ReadStatus(dir, id string) (*Status, error) {
	j, err := openRun(dir, id)
	if errors.Is(err, journal.ErrEmpty) {
		return &Status{ID: id, State: StateEmpty, Reason: emptyReason(err)}, nil
	}
	if err != nil {
		return nil, err
	}
	defer j.Close()
	return statusOf(j, id)
}

func emptyReason(err error) string {
	return err.Error() + "; nothing to resume: start the run again with `assay run`"
}

// OpenRun opens run id's journal read-only, as status does, for readers
// of a run's events (the pairs export); the caller closes it.
func OpenRun(dir, id string) (*journal.Journal, error) { return openRun(dir, id) }

// RunPlan is the plan name, plan hash and variant a run's journal
// records; ok is false for a journal that holds no run record.
func RunPlan(j *journal.Journal) (planName, hash, variant string, ok bool) {
	var m runMeta
	if !j.Meta("run", &m) {
		return "", "", "", false
	}
	return m.Plan, m.Hash, m.Variant, true
}

// openRun opens run id's journal read-only: status and report never take
// the run lock, so they work while the run goes on.
func openRun(dir, id string) (*journal.Journal, error) {
	if !idRE.MatchString(id) {
		return nil, fmt.Errorf("run id %q: use letters, digits, '.', '_' and '-'", id)
	}
	path := filepath.Join(RunDir(dir, id), JournalFile)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no run %q in %s", id, dirOr(dir))
	}
	return journal.OpenReadOnly(path)
}

func dirOr(dir string) string {
	if dir == "" {
		return DefaultDir
	}
	return dir
}

func statusOf(j *journal.Journal, id string) (*Status, error) {
	var m runMeta
	if !j.Meta("run", &m) {
		return &Status{ID: id, State: StateEmpty,
			Reason: fmt.Sprintf("journal %s holds no run record (the run stopped before it began, or its write-ahead log %s-wal was lost); nothing to resume: start the run again with `assay run`", j.Path(), j.Path())}, nil
	}
	st := &Status{ID: id, Plan: m.Plan, Hash: m.Hash, Variant: m.Variant, Seed: m.Seed, Budget: m.Budget, Meta: m.Meta}
	var pv Provenance
	if j.Meta(metaProvenance, &pv) {
		st.Provenance = &pv
	}
	j.Meta("state", &st.State)
	j.Meta("reason", &st.Reason)
	// Who runs it: the run lock when the run took one (it also covers a
	// process on another host), else whether the recorded pid lives.
	running := alive(m.PID)
	if journal.HasLockFile(j.Path()) {
		h, held, err := journal.HeldBy(j.Path())
		running = held && err == nil
		if running {
			st.Holder = h
		}
	}
	switch {
	case running:
		st.State = StateRunning
	case st.State == StateRunning || st.State == "":
		// Gone without recording an end (or before recording a start).
		st.State = StateInterrupted
	}
	if st.State == StateRunning || st.State == StateFinished {
		// A reason left by an earlier interruption no longer applies.
		st.Reason = ""
	}
	if j.Meta("cap_cuts", &st.Cuts) && len(st.Cuts) > 0 {
		st.CapStop = cutsReason(st.Cuts)
	}
	if st.State != StateRunning {
		j.Meta(metaPhaseFailures, &st.Failures)
	}
	var tot Totals
	if j.Meta("totals", &tot) && st.State != StateRunning {
		st.Totals = &tot
	}
	runs := j.Runs()
	st.countRuns(j, runs)
	st.GPUHours, st.RunUSD = round6(st.GPUHours), round6(st.RunUSD)
	if ev, err := j.Events(journal.KindCalibration); err == nil {
		for _, e := range ev {
			var f CalibrationFigures
			if json.Unmarshal(e.Data, &f) == nil {
				f.Points = nil
				st.Calibration = append(st.Calibration, f)
			}
		}
	}
	if ev, err := j.Events(journal.KindEval); err == nil {
		for _, e := range ev {
			var f EvalFigures
			if json.Unmarshal(e.Data, &f) == nil {
				st.Evaluation = append(st.Evaluation, f)
			}
		}
	}
	st.Candidates, st.Sources = candidatesOf(j)
	readRecord(j, st, runs)
	if d, ok, _ := lastEvent(j, journal.KindPhaseStart); ok {
		st.Phase = d.Key
	}
	if ev, err := j.Events(""); err == nil && len(ev) > 0 {
		st.Updated = ev[len(ev)-1].At.UTC()
	}
	return st, nil
}

// countRuns counts the journaled real runs by how they ended, and what
// they and the updates hold.
func (st *Status) countRuns(j *journal.Journal, runs []journal.Run) {
	for _, r := range runs {
		st.RealRuns++
		st.GPUHours += r.Reservation.GPUHours
		st.RunUSD += r.Reservation.USD
		st.ReExecutions += r.Reruns
		switch {
		case r.Result == nil:
			st.InFlight++
		case r.Result.Status == plugins.StatusFinished:
			st.Finished++
		case r.Result.Status == plugins.StatusInfeasible:
			st.Infeasible++
		case r.Result.Status == plugins.StatusError:
			st.Errored++
		default:
			st.Failed++
		}
	}
	// GPUHours and RunUSD are what real runs and updates hold: an update
	// that runs a trainer's command reserves GPU-hours too.
	for _, hold := range updateHolds(j) {
		st.GPUHours += hold.GPUHours
		st.RunUSD += hold.USD
	}
}

func lastEvent(j *journal.Journal, kind string) (journal.Event, bool, error) {
	ev, err := j.Events(kind)
	if err != nil || len(ev) == 0 {
		return journal.Event{}, false, err
	}
	return ev[len(ev)-1], true, nil
}

// alive reports whether a process exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ListRuns returns the status of every run in dir, newest first.
func ListRuns(dir string) ([]*Status, error) {
	entries, err := os.ReadDir(dirOr(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Status
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		fi, err := os.Stat(filepath.Join(dirOr(dir), e.Name(), JournalFile))
		if err != nil {
			continue
		}
		st, err := ReadStatus(dir, e.Name())
		if err != nil {
			// One bad journal must not hide the other runs.
			st = &Status{ID: e.Name(), State: StateUnreadable, Reason: err.Error(), Updated: fi.ModTime().UTC()}
		}
		if st.Updated.IsZero() {
			st.Updated = fi.ModTime().UTC()
		}
		out = append(out, st)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Updated.After(out[b].Updated) })
	return out, nil
}

// Report holds a run's monitoring figures for the report command.
type Report struct {
	Status      *Status              `json:"status"`
	Steps       []StepFigures        `json:"steps,omitempty"`
	Rounds      []RoundFigures       `json:"rounds,omitempty"`
	Calibration []CalibrationFigures `json:"calibration,omitempty"`
	Evaluation  []EvalFigures        `json:"evaluation,omitempty"`
	// CriticEvals are the run's critic_eval phases' figures.
	CriticEvals []CriticEvalFigures `json:"critic_eval,omitempty"`
	Burn        []BurnPoint         `json:"budget_burn"`
	Best        []BestProposal      `json:"best_proposals"`
	// Compare sets the run's figures beside the estimate of its plan; the
	// command that loads the report fills it.
	Compare []Comparison `json:"estimate_vs_run,omitempty"`
	// Predicted sets the run's figures beside an estimate learned from its
	// own measurements; the command that loads the report fills it.
	Predicted []Prediction `json:"predicted_vs_actual,omitempty"`
	// Suite scores the run's task-suite tasks, normalised; nil without one.
	Suite *SuiteScores `json:"suite,omitempty"`
}

// Comparison is one figure of the estimate beside what the run measured.
type Comparison struct {
	Figure   string  `json:"figure"`
	Low      float64 `json:"low"`
	Expected float64 `json:"expected"`
	High     float64 `json:"high"`
	Measured float64 `json:"measured"`
	// Within: low <= measured <= high. A figure outside says an assumption
	// of the estimate did not hold (or a run was cut short); Side says
	// which way: "below" the low or "above" the high.
	Within bool   `json:"within"`
	Side   string `json:"side,omitempty"`
	// Reason says why nothing bounds the figure; High is then +Inf, and
	// null in JSON.
	Reason string `json:"reason,omitempty"`
}

// MarshalJSON writes an unbounded high as null.
func (c Comparison) MarshalJSON() ([]byte, error) {
	type plain Comparison
	out := struct {
		plain
		High *float64 `json:"high"`
	}{plain: plain(c)}
	if !math.IsInf(c.High, 1) {
		out.High = &c.High
	}
	return json.Marshal(out)
}

// Prediction is one figure of a run beside what an estimate learned from
// its own measurements predicts (see estimate --from-run). Error is
// (predicted - actual) / actual.
type Prediction struct {
	Figure    string  `json:"figure"`
	Predicted float64 `json:"predicted"`
	Actual    float64 `json:"actual"`
	Error     float64 `json:"error"`
}

// BurnPoint is the budget used after the n-th real-run reservation.
type BurnPoint struct {
	Run      int     `json:"run"`
	Key      string  `json:"key"`
	GPUHours float64 `json:"gpu_hours"`
	USD      float64 `json:"run_usd"`
	Seconds  float64 `json:"seconds"` // since the run began
}

// BestProposal is a proposal with its measured gain.
type BestProposal struct {
	Key       string            `json:"key"`
	Task      string            `json:"task"`
	Text      string            `json:"text"`
	Mechanism string            `json:"mechanism,omitempty"`
	Edits     map[string]string `json:"edits,omitempty"`
	Metric    float64           `json:"metric"`
	Gain      float64           `json:"real_gain"`
	// Commit is the candidate's commit in source mode.
	Commit string `json:"commit,omitempty"`
}

// LoadReport reads the figures of run id in dir.
func LoadReport(dir, id string) (*Report, error) {
	j, err := openRun(dir, id)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	st, err := statusOf(j, id)
	if err != nil {
		return nil, err
	}
	rep := &Report{Status: st}
	ev, err := j.Events("")
	if err != nil {
		return nil, err
	}
	var start time.Time
	var gpuh, usd float64
	for _, e := range ev {
		if start.IsZero() {
			start = e.At
		}
		switch e.Kind {
		case journal.KindStep:
			var f StepFigures
			if json.Unmarshal(e.Data, &f) == nil && f.Step > 0 && f.Round == 0 {
				rep.Steps = append(rep.Steps, f)
			}
			var rf RoundFigures
			if json.Unmarshal(e.Data, &rf) == nil && rf.Round > 0 {
				rep.Rounds = append(rep.Rounds, rf)
			}
		case journal.KindCalibration:
			var f CalibrationFigures
			if json.Unmarshal(e.Data, &f) == nil {
				rep.Calibration = append(rep.Calibration, f)
			}
		case journal.KindEval:
			var f EvalFigures
			if json.Unmarshal(e.Data, &f) == nil {
				rep.Evaluation = append(rep.Evaluation, f)
			}
		case journal.KindCriticEval:
			var f CriticEvalFigures
			if json.Unmarshal(e.Data, &f) == nil {
				rep.CriticEvals = append(rep.CriticEvals, f)
			}
		case journal.KindReserve:
			var r journal.Reservation
			if json.Unmarshal(e.Data, &r) == nil {
				gpuh += r.GPUHours
				usd += r.USD
				rep.Burn = append(rep.Burn, BurnPoint{Run: len(rep.Burn) + 1, Key: e.Key, GPUHours: round6(gpuh), USD: round6(usd), Seconds: e.At.Sub(start).Seconds()})
			}
		}
	}
	runs := j.Runs()
	rep.Suite = suiteScores(dir, id, st.Variant, runs)
	for _, r := range runs {
		res, rs := r.Result, r.Reservation
		if res == nil || res.Status != plugins.StatusFinished || rs.Baseline == nil || rs.Proposal == nil {
			continue
		}
		g := res.Metric - *rs.Baseline
		if rs.Minimize {
			g = -g
		}
		rep.Best = append(rep.Best, BestProposal{Key: r.Key, Task: rs.Env + "/" + rs.Task, Text: rs.Proposal.Text,
			Mechanism: rs.Proposal.Mechanism, Edits: rs.Proposal.Edits, Commit: rs.Proposal.Commit, Metric: res.Metric, Gain: round6(g)})
	}
	sort.SliceStable(rep.Best, func(a, b int) bool { return rep.Best[a].Gain > rep.Best[b].Gain })
	if len(rep.Best) > 10 {
		rep.Best = rep.Best[:10]
	}
	return rep, nil
}

// Timing is how long a run's real runs and LLM calls took, read from its
// journal: what `assay estimate --from-run` learns hours per run and
// seconds per call from. Durations differ from one run of a plan to the
// next, so they are not part of Totals, which a resumed run reproduces.
type Timing struct {
	Environments map[string]*EnvTiming  `json:"environments,omitempty"`
	Roles        map[string]*RoleTiming `json:"roles,omitempty"`
}

// EnvTiming is the wall-clock hours of an environment's timed real runs:
// those with a result whose duration the trainer reported or the runtime
// measured from start to result (a run only waited on after a resume has
// none).
type EnvTiming struct {
	Runs        int     `json:"timed_runs"`
	Hours       float64 `json:"hours"`
	HoursPerRun float64 `json:"hours_per_run"`
}

// RoleTiming is the latency of a role's calls that answered.
type RoleTiming struct {
	Calls          int     `json:"timed_calls"`
	Seconds        float64 `json:"seconds"`
	SecondsPerCall float64 `json:"seconds_per_call"`
}

// ReadTiming reads the durations of run id in dir.
func ReadTiming(dir, id string) (*Timing, error) {
	j, err := openRun(dir, id)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	t := &Timing{Environments: map[string]*EnvTiming{}, Roles: map[string]*RoleTiming{}}
	for _, r := range j.Runs() {
		res := r.Result
		if res == nil || res.Seconds <= 0 || (res.Status != plugins.StatusFinished && res.Status != plugins.StatusInfeasible) {
			continue
		}
		e := t.Environments[r.Reservation.Env]
		if e == nil {
			e = &EnvTiming{}
			t.Environments[r.Reservation.Env] = e
		}
		e.Runs++
		e.Hours += res.Seconds / 3600
	}
	for _, e := range t.Environments {
		e.HoursPerRun = e.Hours / float64(e.Runs)
	}
	calls, err := j.Events(journal.KindCall)
	if err != nil {
		return nil, err
	}
	for _, ev := range calls {
		var c struct {
			Role    string  `json:"role"`
			Seconds float64 `json:"seconds"`
		}
		if json.Unmarshal(ev.Data, &c) != nil || c.Seconds <= 0 {
			continue
		}
		r := t.Roles[c.Role]
		if r == nil {
			r = &RoleTiming{}
			t.Roles[c.Role] = r
		}
		r.Calls++
		r.Seconds += c.Seconds
	}
	for _, r := range t.Roles {
		r.SecondsPerCall = r.Seconds / float64(r.Calls)
	}
	return t, nil
}
