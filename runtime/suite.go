package runtime

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// SuiteScores are a run's scores on the tasks of its task suites, as the
// critics paper's tables show them: per task, raw and normalised by the
// task's bounds (1 at the better bound), then the normalised scores
// averaged per domain, the domain rows averaged (the tables' Domain
// Average), and the held-out tasks averaged alone: those of the holdout
// split, and those the suite marks as held out from critic training (the
// Heldout-Only Average). A task the suite leaves unscored has its row and
// no part in any average. Each score is a
// column: "baseline" (the task's anchor), "best" (the best a run of a
// proposal measured on it) and "eval ARM" (the mean of an evaluation
// arm's runs of it). A score no run measured is null.
type SuiteScores struct {
	Columns []string       `json:"columns"`
	Tasks   []SuiteTaskRow `json:"tasks"`
	Domains []SuiteRow     `json:"domains"`
	// Holdout averages the held-out tasks; nil when the suites have none.
	Holdout *SuiteRow `json:"holdout,omitempty"`
	// Average is the mean of the domain rows, each domain counting once.
	Average *SuiteRow `json:"domain_average,omitempty"`
	// CriticHeldout averages the tasks whose critic_split is heldout; nil
	// when the suites mark none.
	CriticHeldout *SuiteRow `json:"critic_heldout,omitempty"`
}

// SuiteTaskRow is one task's scores, by column.
type SuiteTaskRow struct {
	Env    string `json:"env"`
	Task   string `json:"task"`
	Domain string `json:"domain"`
	Split  string `json:"split"`
	// CriticSplit and Unscored are the suite's marks (plan.Task's).
	CriticSplit string     `json:"critic_split,omitempty"`
	Unscored    bool       `json:"unscored,omitempty"`
	Metric      string     `json:"metric,omitempty"`
	Low         float64    `json:"low"`
	High        float64    `json:"high"`
	Scores      []*float64 `json:"scores"`
	Normalised  []*float64 `json:"normalised"`
}

// SuiteRow is the mean normalised score of a group of tasks, by column,
// over the tasks that have the score.
type SuiteRow struct {
	Name       string     `json:"name"`
	Tasks      int        `json:"tasks"`
	Normalised []*float64 `json:"normalised"`
}

// suiteKey names a task of an environment.
type suiteKey struct{ env, task string }

// suiteMeasured is what a run's real runs measured of its suite tasks: the
// best of a proposal's runs, the baselines phase's run, and each
// evaluation arm's sum and count (keys eval/ARM/ENV/TASK/...).
type suiteMeasured struct {
	best, baseline map[suiteKey]float64
	armSum         map[string]map[suiteKey][2]float64
}

func measureSuite(tasks map[suiteKey]*plan.Task, runs []journal.Run) *suiteMeasured {
	ms := &suiteMeasured{best: map[suiteKey]float64{}, baseline: map[suiteKey]float64{}, armSum: map[string]map[suiteKey][2]float64{}}
	for _, r := range runs {
		k := suiteKey{r.Reservation.Env, r.Reservation.Task}
		t := tasks[k]
		if t == nil || r.Result == nil || r.Result.Status != plugins.StatusFinished {
			continue
		}
		m := r.Result.Metric
		if r.Reservation.Proposal == nil || r.Reservation.Baseline == nil {
			ms.baseline[k] = m // the baselines phase measured it
			continue
		}
		if b, ok := ms.best[k]; !ok || better(m, b, t.Direction == plan.Minimize) {
			ms.best[k] = m
		}
		if parts := strings.Split(r.Key, "/"); len(parts) > 2 && parts[0] == "eval" {
			if ms.armSum[parts[1]] == nil {
				ms.armSum[parts[1]] = map[suiteKey][2]float64{}
			}
			s := ms.armSum[parts[1]][k]
			ms.armSum[parts[1]][k] = [2]float64{s[0] + m, s[1] + 1}
		}
	}
	return ms
}

// suiteScoresOf scores the suite tasks of envs (those with bounds) from a
// run's real runs; nil when no task has bounds.
func suiteScoresOf(envs []*plan.Environment, runs []journal.Run) *SuiteScores {
	tasks := map[suiteKey]*plan.Task{}
	var order []suiteKey
	for _, e := range envs {
		for _, t := range e.Tasks {
			if t.Bounds != nil {
				tasks[suiteKey{e.Name, t.Name}] = t
				order = append(order, suiteKey{e.Name, t.Name})
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	ms := measureSuite(tasks, runs)
	arms := make([]string, 0, len(ms.armSum))
	for a := range ms.armSum {
		arms = append(arms, a)
	}
	sort.Strings(arms)
	out := &SuiteScores{Columns: []string{"baseline", "best"}}
	for _, a := range arms {
		out.Columns = append(out.Columns, "eval "+a)
	}
	for _, k := range order {
		out.Tasks = append(out.Tasks, ms.row(k, tasks[k], arms))
	}
	out.Domains, out.Holdout = suiteMeans(out.Tasks, len(out.Columns))
	out.Average, out.CriticHeldout = suiteAverages(out.Tasks, out.Domains, len(out.Columns))
	return out
}

// row is one task's scores, raw and normalised, by column.
func (ms *suiteMeasured) row(k suiteKey, t *plan.Task, arms []string) SuiteTaskRow {
	row := SuiteTaskRow{Env: k.env, Task: k.task, Domain: t.Domain, Split: t.Split, CriticSplit: t.CriticSplit, Unscored: t.Unscored,
		Metric: t.Metric, Low: t.Bounds.Low, High: t.Bounds.High}
	var b *float64
	if t.Baseline != nil {
		b = ptrTo(*t.Baseline)
	} else if m, ok := ms.baseline[k]; ok {
		b = ptrTo(m)
	}
	row.Scores = append(row.Scores, b)
	if m, ok := ms.best[k]; ok {
		row.Scores = append(row.Scores, ptrTo(m))
	} else {
		row.Scores = append(row.Scores, nil)
	}
	for _, a := range arms {
		if s, ok := ms.armSum[a][k]; ok {
			row.Scores = append(row.Scores, ptrTo(s[0]/s[1]))
		} else {
			row.Scores = append(row.Scores, nil)
		}
	}
	for _, s := range row.Scores {
		var n *float64
		if s != nil {
			if v, ok := t.Normalised(*s, t.Direction == plan.Minimize); ok {
				n = ptrTo(round6(v))
			}
		}
		row.Normalised = append(row.Normalised, n)
	}
	return row
}

// suiteMeans averages the task rows per domain and over held-out tasks.
func suiteMeans(rows []SuiteTaskRow, cols int) ([]SuiteRow, *SuiteRow) {
	domains := map[string][]SuiteTaskRow{}
	var names []string
	var held []SuiteTaskRow
	for _, r := range rows {
		if r.Unscored {
			continue
		}
		if _, ok := domains[r.Domain]; !ok {
			names = append(names, r.Domain)
		}
		domains[r.Domain] = append(domains[r.Domain], r)
		if r.Split == "holdout" {
			held = append(held, r)
		}
	}
	sort.Strings(names)
	var out []SuiteRow
	for _, d := range names {
		out = append(out, meanRow(d, domains[d], cols))
	}
	if len(held) == 0 {
		return out, nil
	}
	h := meanRow("holdout", held, cols)
	return out, &h
}

// suiteAverages are the mean of the domain rows (each domain once, over
// the domains that have the column's score) and the mean over the scored
// tasks the suite marks as held out from critic training (nil without
// one).
func suiteAverages(rows []SuiteTaskRow, domains []SuiteRow, cols int) (avg, held *SuiteRow) {
	if len(domains) > 0 {
		a := SuiteRow{Name: "domain average"}
		scores := make([][]*float64, len(domains))
		for i, d := range domains {
			a.Tasks += d.Tasks
			scores[i] = d.Normalised
		}
		a.Normalised = columnMeans(scores, cols)
		avg = &a
	}
	var marked bool
	var hr []SuiteTaskRow
	for _, r := range rows {
		marked = marked || r.CriticSplit != ""
		if r.CriticSplit == "heldout" && !r.Unscored {
			hr = append(hr, r)
		}
	}
	if marked {
		h := meanRow("critic held-out", hr, cols)
		held = &h
	}
	return avg, held
}

func better(m, than float64, minimize bool) bool {
	if minimize {
		return m < than
	}
	return m > than
}

func meanRow(name string, rows []SuiteTaskRow, cols int) SuiteRow {
	scores := make([][]*float64, len(rows))
	for i, r := range rows {
		scores[i] = r.Normalised
	}
	return SuiteRow{Name: name, Tasks: len(rows), Normalised: columnMeans(scores, cols)}
}

// columnMeans is each of cols columns' mean over the rows that have a
// score there (nil where none has).
func columnMeans(rows [][]*float64, cols int) []*float64 {
	var out []*float64
	for c := range cols {
		var sum float64
		n := 0
		for _, r := range rows {
			if v := r[c]; v != nil {
				sum += *v
				n++
			}
		}
		var m *float64
		if n > 0 {
			m = ptrTo(round6(sum / float64(n)))
		}
		out = append(out, m)
	}
	return out
}

func ptrTo(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// suiteScores reads the plan a run saved and scores its suite tasks; nil
// when the plan is not at hand or lists no suite task.
func suiteScores(dir, id, variant string, runs []journal.Run) *SuiteScores {
	b, err := os.ReadFile(filepath.Join(RunDir(dir, id), PlanFile))
	if err != nil {
		return nil
	}
	var p plan.Plan
	if json.Unmarshal(b, &p) != nil {
		return nil
	}
	i, err := p.VariantIndex(variant)
	if err != nil {
		return nil
	}
	return suiteScoresOf(p.Variants[i].Envs, runs)
}
