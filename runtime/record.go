package runtime

import (
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// The record of a run that status and the report read from its journal,
// beside the counts: what it replays, each task's baseline metric, seed
// commit and best program, and what each candidate measured.

// ReplayOf names the run a replay takes its LLM answers from (and, with
// Runs, its real runs' results).
type ReplayOf struct {
	Run  string `json:"run"`
	Dir  string `json:"dir"`
	Runs bool   `json:"runs"`
}

// TaskRecord is one task of a run as its record tells it: the baseline
// metric its gains are measured against (from the run BaselineRun, or
// declared in the spec or by a benchmark when that is empty), and in
// source mode the seed commit its candidates were built from, the
// repository that holds them, and its best verified program.
type TaskRecord struct {
	Env         string   `json:"env"`
	Task        string   `json:"task"`
	Baseline    *float64 `json:"baseline,omitempty"`
	BaselineRun string   `json:"baseline_run,omitempty"`
	Minimize    bool     `json:"minimize,omitempty"`
	SeedCommit  string   `json:"seed_commit,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	// Best is the task's best verified candidate; Checkout the command
	// that checks it out.
	Best     *BestProgram `json:"best,omitempty"`
	Checkout string       `json:"checkout,omitempty"`
}

// Meta keys of the record: the run's best programs, as markBest last set
// them, and each task's baseline as the run knew it after a phase.
const (
	metaBest  = "best_programs"
	metaTasks = "task_baselines"
)

// taskBaseline is what the journal keeps of a task: its baseline metric
// (nil while unknown) and direction.
type taskBaseline struct {
	Env      string   `json:"env"`
	Task     string   `json:"task"`
	Baseline *float64 `json:"baseline,omitempty"`
	Minimize bool     `json:"minimize,omitempty"`
}

// journalTasks records each task's baseline, declared, from a benchmark
// or measured, so status names it for tasks no real run reserved too.
func journalTasks(r *service) error {
	var out []taskBaseline
	for _, t := range r.tasks {
		tb := taskBaseline{Env: t.Env, Task: t.Name, Minimize: t.Minimize}
		if !math.IsNaN(t.Baseline) {
			b := t.Baseline
			tb.Baseline = &b
		}
		out = append(out, tb)
	}
	if len(out) == 0 {
		return nil
	}
	return r.j.SetMeta(metaTasks, out)
}

// Checkout is the command that checks b out: git -C REPOSITORY checkout
// REF, the repository quoted for a shell where it needs to be.
func (b BestProgram) Checkout() string {
	return "git -C " + shellWord(b.Repository) + " checkout " + shellWord(b.Ref)
}

// shellWord quotes s for a POSIX shell unless it is plain.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readRecord fills what st's record adds to its counts: the replayed
// run, each task's record, and each candidate's attempts and outcome.
func readRecord(j *journal.Journal, st *Status, runs []journal.Run) {
	var rp Replay
	if j.Meta(metaReplay, &rp) && rp.Dir != "" {
		st.Replay = &ReplayOf{Run: filepath.Base(rp.Dir), Dir: rp.Dir, Runs: rp.Runs}
	}
	var best []BestProgram
	j.Meta(metaBest, &best)
	var known []taskBaseline
	j.Meta(metaTasks, &known)
	st.Tasks = taskRecords(known, runs, st.Sources, best)
	measureCandidates(st.Candidates, runs)
}

// taskRecords are the tasks the run's journaled baselines, real runs, seed
// programs and best programs name, in the order they first appear.
func taskRecords(known []taskBaseline, runs []journal.Run, seeds []SeedSource, best []BestProgram) []TaskRecord {
	var out []TaskRecord
	at := map[string]int{}
	task := func(env, name string) *TaskRecord {
		k := env + "/" + name
		if i, ok := at[k]; ok {
			return &out[i]
		}
		at[k] = len(out)
		out = append(out, TaskRecord{Env: env, Task: name})
		return &out[len(out)-1]
	}
	for _, k := range known {
		t := task(k.Env, k.Task)
		t.Baseline, t.Minimize = k.Baseline, k.Minimize
	}
	for _, s := range seeds {
		t := task(s.Env, s.Task)
		t.SeedCommit, t.Repository = s.Commit, s.Repository
	}
	for _, r := range runs {
		rs := r.Reservation
		t := task(rs.Env, rs.Task)
		t.Minimize = rs.Minimize
		switch {
		case strings.HasPrefix(r.Key, "baseline/") && r.Result != nil && r.Result.Status == plugins.StatusFinished:
			m := r.Result.Metric
			t.Baseline, t.BaselineRun = &m, r.Key
		case rs.Baseline != nil && t.Baseline == nil && t.BaselineRun == "":
			b := *rs.Baseline
			t.Baseline = &b
		}
	}
	for _, b := range best {
		t := task(b.Env, b.Task)
		bb := b
		t.Best, t.Checkout, t.Repository = &bb, b.Checkout(), b.Repository
	}
	return out
}

// measureCandidates sets each candidate's outcome: the last real run of
// its commit on its task that has a result (a repaired candidate's: its
// last attempt's), and each attempt's run outcome.
func measureCandidates(cs []Candidate, runs []journal.Run) {
	if len(cs) == 0 {
		return
	}
	byKey := map[string]*journal.Run{}
	byCommit := map[string]*journal.Run{}
	for i := range runs {
		r := &runs[i]
		if r.Result == nil {
			continue
		}
		byKey[strings.SplitN(r.Key, "~", 2)[0]] = r // a retry's result replaces its attempt's
		if p := r.Reservation.Proposal; p != nil && p.Commit != "" {
			byCommit[r.Reservation.Env+"/"+r.Reservation.Task+"/"+p.Commit] = r
		}
	}
	for i := range cs {
		c := &cs[i]
		for k := range c.Attempts {
			a := &c.Attempts[k]
			if r := byKey[a.Run]; r != nil {
				a.Status, a.Reason = r.Result.Status, firstLine(r.Result.Reason, 200)
				if r.Result.Status == plugins.StatusFinished {
					m := r.Result.Metric
					a.Metric = &m
				}
			}
		}
		if r := byCommit[c.Env+"/"+c.Task+"/"+c.Commit]; r != nil {
			c.measured(r)
		}
	}
}

// measured sets c's outcome from r, the run that measured its program.
func (c *Candidate) measured(r *journal.Run) {
	c.Run, c.Status = r.Key, r.Result.Status
	if r.Result.Status != plugins.StatusFinished {
		return
	}
	m := r.Result.Metric
	c.Metric = &m
	if b := r.Reservation.Baseline; b != nil {
		g := m - *b
		if r.Reservation.Minimize {
			g = -g
		}
		g = round6(g) + 0 // no -0
		c.Gain = &g
	}
}

// firstLine is s's first line, at most n bytes of it.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
