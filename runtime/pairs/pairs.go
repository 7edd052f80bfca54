package pairs

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
)

// Bounds on what one export reads and writes.
const (
	// MaxRuns is the most runs one export reads.
	MaxRuns = 256
	// MaxPairs is the most pairs one export holds.
	MaxPairs = critic.MaxPairs
)

// Program is one side of a pair (critic.Program, where the file format
// lives, so that the spec loader and the runtime read it too).
type Program = critic.Program

// Pair is one labelled parent/child pair (critic.Pair).
type Pair = critic.Pair

// Skipped counts the finished candidate runs that make no pair, by why.
type Skipped map[string]int

// Why a finished candidate makes no pair.
const (
	SkipParentUnmeasured = "parent never measured by a real run"
	SkipParentMissing    = "parent's run has no finished result"
	SkipNoBaseline       = "task has no baseline metric"
)

// Read reads and labels the pairs of runs ids in dir, in the order given,
// each run's in reservation order.
func Read(dir string, ids []string) ([]Pair, Skipped, error) {
	if len(ids) > MaxRuns {
		return nil, nil, fmt.Errorf("%d runs: one export reads at most %d", len(ids), MaxRuns)
	}
	seen := map[string]bool{}
	skipped := Skipped{}
	var out []Pair
	for _, id := range ids {
		if seen[id] {
			return nil, nil, fmt.Errorf("run %s is named twice", id)
		}
		seen[id] = true
		ps, err := readRun(dir, id, skipped)
		if err != nil {
			return nil, nil, err
		}
		if len(out)+len(ps) > MaxPairs {
			return nil, nil, fmt.Errorf("the runs hold more than %d pairs: export fewer runs at a time", MaxPairs)
		}
		out = append(out, ps...)
	}
	return out, skipped, nil
}

func readRun(dir, id string, skipped Skipped) ([]Pair, error) {
	j, err := runtime.OpenRun(dir, id)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	defer j.Close()
	planName, hash, variant, ok := runtime.RunPlan(j)
	if !ok {
		return nil, fmt.Errorf("run %s: the journal holds no run record", id)
	}
	runs := j.Runs()
	// finished is each candidate's attempt that finished with a metric.
	finished := map[string]journal.Run{}
	for _, r := range runs {
		if r.Result != nil && r.Result.Status == plugins.StatusFinished && r.Reservation.Lineage != nil {
			finished[r.Reservation.Lineage.Candidate] = r
		}
	}
	var out []Pair
	for _, r := range runs {
		l := r.Reservation.Lineage
		if l == nil || r.Result == nil || r.Result.Status != plugins.StatusFinished {
			continue
		}
		res := r.Reservation
		p := Pair{Run: id, Plan: planName, PlanHash: hash, Variant: variant, Phase: res.Phase, Env: res.Env, Task: res.Task,
			Candidate: l.Candidate, RunKey: r.Key, ParentCandidate: l.ParentCandidate, Minimize: res.Minimize}
		switch {
		case l.ParentUnmeasured:
			skipped[SkipParentUnmeasured]++
			continue
		case l.ParentCandidate == "":
			if res.Baseline == nil {
				skipped[SkipNoBaseline]++
				continue
			}
			p.Parent = program(l.Parent, *res.Baseline)
		default:
			pr, ok := finished[l.ParentCandidate]
			if !ok {
				skipped[SkipParentMissing]++
				continue
			}
			p.Parent = program(l.Parent, pr.Result.Metric)
			p.Parent.Summary = summary(j, runtime.SummaryKey(l.ParentCandidate, pr.Key))
		}
		if res.Proposal != nil {
			p.Child = program(*res.Proposal, r.Result.Metric)
			p.Idea = res.Proposal.Text
		}
		p.Child.Metric = r.Result.Metric
		// The summary of the program this run measured: a repaired
		// candidate's is its repair's, never its first attempt's.
		p.Child.Summary = summary(j, runtime.SummaryKey(l.Candidate, r.Key))
		p.Label3 = critic.Label3(p.Parent.Metric, p.Child.Metric, p.Minimize)
		if d, err := critic.Relative(p.Parent.Metric, p.Child.Metric, p.Minimize); err == nil {
			p.Relative = &d
		}
		p.Split = "train"
		out = append(out, p)
	}
	ladder(out)
	return out, nil
}

// ladder sets the 5-way labels of one run's pairs, parent by parent.
func ladder(ps []Pair) {
	type parentKey struct{ env, task, cand string }
	by := map[parentKey][]int{}
	var order []parentKey
	for i, p := range ps {
		k := parentKey{p.Env, p.Task, p.ParentCandidate}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], i)
	}
	for _, k := range order {
		var idx []int
		var ds []float64
		for _, i := range by[k] {
			if ps[i].Relative != nil {
				idx = append(idx, i)
				ds = append(ds, *ps[i].Relative)
			}
		}
		labels, ok := critic.Ladder(ds)
		if !ok {
			continue
		}
		for n, i := range idx {
			ps[i].Label5 = labels[n]
		}
	}
}

func program(p plugins.Proposal, metric float64) Program {
	return Program{Commit: p.Commit, ID: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch, Metric: metric}
}

// summary is the summarizer's answer journaled under key, if any.
func summary(j *journal.Journal, key string) string {
	d, ok := j.Call(journal.KindCall, key)
	if !ok {
		return ""
	}
	var c struct {
		Payload json.RawMessage `json:"payload"`
		Failed  string          `json:"failed"`
	}
	if json.Unmarshal(d, &c) != nil || c.Failed != "" || len(c.Payload) == 0 {
		return ""
	}
	var s payload.SummarizeResponse
	if json.Unmarshal(c.Payload, &s) != nil {
		return ""
	}
	return s.Summary
}

// Skips lists the skip counts in a stable order, for a message.
func (s Skipped) Skips() []string {
	var out []string
	for why, n := range s {
		out = append(out, fmt.Sprintf("%d: %s", n, why))
	}
	sort.Strings(out)
	return out
}
