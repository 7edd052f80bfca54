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
// averaged per domain and over the held-out tasks alone. Each score is a
// column: "baseline" (the task's anchor), "best" (the best a run of a
// proposal measured on it) and "eval ARM" (the mean of an evaluation
// arm's runs of it). A score no run measured is null.
type SuiteScores struct {
	Columns []string       `json:"columns"`
	Tasks   []SuiteTaskRow `json:"tasks"`
	Domains []SuiteRow     `json:"domains"`
	// Holdout averages the held-out tasks; nil when the suites have none.
	Holdout *SuiteRow `json:"holdout,omitempty"`
}

// SuiteTaskRow is one task's scores, by column.
type SuiteTaskRow struct {
	Env        string     `json:"env"`
	Task       string     `json:"task"`
	Domain     string     `json:"domain"`
	Split      string     `json:"split"`
	Metric     string     `json:"metric,omitempty"`
	Low        float64    `json:"low"`
	High       float64    `json:"high"`
	Scores     []*float64 `json:"scores"`
	Normalised []*float64 `json:"normalised"`
}

// SuiteRow is the mean normalised score of a group of tasks, by column,
// over the tasks that have the score.
type SuiteRow struct {
	Name       string     `json:"name"`
	Tasks      int        `json:"tasks"`
	Normalised []*float64 `json:"normalised"`
}

// suiteScoresOf scores the suite tasks of envs (those with bounds) from a
// run's real runs; nil when no task has bounds.
func suiteScoresOf(envs []*plan.Environment, runs []journal.Run) *SuiteScores {
	type key struct{ env, task string }
	tasks := map[key]*plan.Task{}
	minimize := map[string]bool{}
	var order []key
	for _, e := range envs {
		minimize[e.Name] = e.Direction != "maximize"
		for _, t := range e.Tasks {
			if t.Bounds != nil {
				tasks[key{e.Name, t.Name}] = t
				order = append(order, key{e.Name, t.Name})
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	// The measured scores: the best of a proposal's runs, and each
	// evaluation arm's runs (keys eval/ARM/ENV/TASK/...).
	best := map[key]float64{}
	baseline := map[key]float64{}
	armSum := map[string]map[key][2]float64{}
	for _, r := range runs {
		k := key{r.Reservation.Env, r.Reservation.Task}
		if tasks[k] == nil || r.Result == nil || r.Result.Status != plugins.StatusFinished {
			continue
		}
		m := r.Result.Metric
		if r.Reservation.Proposal == nil || r.Reservation.Baseline == nil {
			baseline[k] = m // the baselines phase measured it
			continue
		}
		if b, ok := best[k]; !ok || better(m, b, minimize[k.env]) {
			best[k] = m
		}
		if parts := strings.Split(r.Key, "/"); len(parts) > 2 && parts[0] == "eval" {
			if armSum[parts[1]] == nil {
				armSum[parts[1]] = map[key][2]float64{}
			}
			s := armSum[parts[1]][k]
			armSum[parts[1]][k] = [2]float64{s[0] + m, s[1] + 1}
		}
	}
	arms := make([]string, 0, len(armSum))
	for a := range armSum {
		arms = append(arms, a)
	}
	sort.Strings(arms)
	out := &SuiteScores{Columns: []string{"baseline", "best"}}
	for _, a := range arms {
		out.Columns = append(out.Columns, "eval "+a)
	}
	for _, k := range order {
		t := tasks[k]
		row := SuiteTaskRow{Env: k.env, Task: k.task, Domain: t.Domain, Split: t.Split, Metric: t.Metric, Low: t.Bounds.Low, High: t.Bounds.High}
		var b *float64
		if t.Baseline != nil {
			b = ptrTo(*t.Baseline)
		} else if m, ok := baseline[k]; ok {
			b = ptrTo(m)
		}
		row.Scores = append(row.Scores, b)
		if m, ok := best[k]; ok {
			row.Scores = append(row.Scores, ptrTo(m))
		} else {
			row.Scores = append(row.Scores, nil)
		}
		for _, a := range arms {
			if s, ok := armSum[a][k]; ok {
				row.Scores = append(row.Scores, ptrTo(s[0]/s[1]))
			} else {
				row.Scores = append(row.Scores, nil)
			}
		}
		for _, s := range row.Scores {
			var n *float64
			if s != nil {
				if v, ok := t.Normalised(*s, minimize[k.env]); ok {
					n = ptrTo(round6(v))
				}
			}
			row.Normalised = append(row.Normalised, n)
		}
		out.Tasks = append(out.Tasks, row)
	}
	domains := map[string][]SuiteTaskRow{}
	var names []string
	var held []SuiteTaskRow
	for _, r := range out.Tasks {
		if _, ok := domains[r.Domain]; !ok {
			names = append(names, r.Domain)
		}
		domains[r.Domain] = append(domains[r.Domain], r)
		if r.Split == "holdout" {
			held = append(held, r)
		}
	}
	sort.Strings(names)
	for _, d := range names {
		out.Domains = append(out.Domains, meanRow(d, domains[d], len(out.Columns)))
	}
	if len(held) > 0 {
		h := meanRow("holdout", held, len(out.Columns))
		out.Holdout = &h
	}
	return out
}

func better(m, than float64, minimize bool) bool {
	if minimize {
		return m < than
	}
	return m > than
}

func meanRow(name string, rows []SuiteTaskRow, cols int) SuiteRow {
	out := SuiteRow{Name: name, Tasks: len(rows)}
	for c := range cols {
		var sum float64
		n := 0
		for _, r := range rows {
			if v := r.Normalised[c]; v != nil {
				sum += *v
				n++
			}
		}
		var m *float64
		if n > 0 {
			m = ptrTo(round6(sum / float64(n)))
		}
		out.Normalised = append(out.Normalised, m)
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
