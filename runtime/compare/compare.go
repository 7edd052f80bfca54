package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// Row is one run's figures. A pointer figure is nil where the run did not
// measure it (no evaluation, no calibration, no critic routing, no finished
// proposal): a blank, never a zero that reads as a result.
type Row struct {
	ID      string `json:"id"`
	Group   string `json:"group,omitempty"`
	Plan    string `json:"plan"`
	Variant string `json:"variant"`
	Seed    int64  `json:"seed"`
	// Overrides are the fields set by the variant's sweep axes and by
	// --set, by path.
	Overrides map[string]any `json:"overrides,omitempty"`
	PlanHash  string         `json:"plan_hash"`
	State     string         `json:"state"`
	RealRuns  int            `json:"real_runs"`
	GPUHours  float64        `json:"gpu_hours"`
	// USD is the run's dollars: real runs and LLM calls once it ended,
	// reserved real-run dollars while it runs.
	USD      float64  `json:"usd"`
	BestGain *float64 `json:"best_real_gain,omitempty"`
	// AvgAt and BestAt are the k of Avg@k and Best@k (avg_k, best_k);
	// Avg and Best the figures (avg_at_k, best_at_k).
	AvgAt  int      `json:"avg_k,omitempty"`
	Avg    *float64 `json:"avg_at_k,omitempty"`
	BestAt int      `json:"best_k,omitempty"`
	Best   *float64 `json:"best_at_k,omitempty"`
	// AvgGot and BestGot are set when a state got fewer measured
	// proposals than k: the fewest, so the figure is no Avg@k.
	AvgGot  *int `json:"avg_at_got,omitempty"`
	BestGot *int `json:"best_at_got,omitempty"`
	// CalibrationMAE is the world model's mean absolute error at the last
	// calibration round.
	CalibrationMAE *float64 `json:"calibration_mae,omitempty"`
	// RoutedShare is the share of judged candidates the critic routed to a
	// real run, over every loop; ExpectedRouted is what the plan assumed.
	RoutedShare    *float64 `json:"routed_share,omitempty"`
	ExpectedRouted *float64 `json:"expected_routed,omitempty"`
	// Suite are the run's normalised task-suite scores (see
	// runtime.SuiteScores): the best a run measured per task, per domain
	// and over the held-out tasks, then each evaluation arm's held-out mean.
	Suite []SuiteScore `json:"suite_normalised,omitempty"`
	// Candidates are a source-mode run's built candidates: idea, commit,
	// diffstat, metric and gain (see runtime.Candidate).
	Candidates []runtime.Candidate `json:"candidates,omitempty"`
	// ReplayOf is the run this one replays ("" for none); Tasks each
	// task's baseline, seed commit and best program (runtime.TaskRecord).
	ReplayOf string               `json:"replay_of,omitempty"`
	Tasks    []runtime.TaskRecord `json:"tasks,omitempty"`
	// CriticEval are the run's static critic figures (criticRow).
	CriticEval []SuiteScore `json:"critic_eval,omitempty"`
}

// SuiteScore is one normalised score; nil when no run measured it.
type SuiteScore struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
}

// suiteRow picks the figures a comparison shows of a run's suite scores.
func suiteRow(s *runtime.SuiteScores) []SuiteScore {
	if s == nil {
		return nil
	}
	col := func(name string) int {
		for i, c := range s.Columns {
			if c == name {
				return i
			}
		}
		return -1
	}
	best := col("best")
	var out []SuiteScore
	for _, t := range s.Tasks {
		out = append(out, SuiteScore{t.Task, t.Normalised[best]})
	}
	for _, d := range s.Domains {
		out = append(out, SuiteScore{"domain " + d.Name, d.Normalised[best]})
	}
	if a := s.Average; a != nil {
		out = append(out, SuiteScore{"domain average", a.Normalised[best]})
	}
	if h := s.CriticHeldout; h != nil {
		out = append(out, SuiteScore{"critic held-out", h.Normalised[best]})
	}
	if h := s.Holdout; h != nil {
		out = append(out, SuiteScore{"held-out", h.Normalised[best]})
		for i, c := range s.Columns {
			if arm, ok := strings.CutPrefix(c, "eval "); ok {
				out = append(out, SuiteScore{"held-out " + arm, h.Normalised[i]})
			}
		}
	}
	return out
}

// Load reads the row of each run id in dir, in the order given. An id that
// names no run but is the group of some runs stands for them all, in
// variant order.
func Load(dir string, ids []string) ([]*Row, error) {
	var out []*Row
	var list []*runtime.Status
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(runtime.RunDir(dir, id), runtime.JournalFile)); err != nil {
			if list == nil {
				l, lerr := runtime.ListRuns(dir)
				if lerr != nil {
					return nil, lerr
				}
				list = l
			}
			members := groupMembers(list, id)
			if len(members) == 0 {
				return nil, fmt.Errorf("no run or group %q in %s", id, dirOr(dir))
			}
			for _, m := range members {
				r, err := LoadRow(dir, m)
				if err != nil {
					return nil, err
				}
				out = append(out, r)
			}
			continue
		}
		r, err := LoadRow(dir, id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// groupMembers returns the ids of the runs of group g, by variant index.
func groupMembers(list []*runtime.Status, g string) []string {
	type m struct {
		id  string
		idx int
		// seed orders the runs of a group of seeds (run --seeds).
		seed int64
	}
	var ms []m
	for _, s := range list {
		if s.Meta["group"] == g {
			var i int
			fmt.Sscanf(s.Meta["variant_index"], "%d", &i)
			ms = append(ms, m{s.ID, i, s.Seed})
		}
	}
	sort.SliceStable(ms, func(a, b int) bool {
		if ms[a].idx != ms[b].idx {
			return ms[a].idx < ms[b].idx
		}
		if ms[a].seed != ms[b].seed {
			return ms[a].seed < ms[b].seed
		}
		return ms[a].id < ms[b].id
	})
	ids := make([]string, len(ms))
	for i, x := range ms {
		ids[i] = x.id
	}
	return ids
}

func dirOr(dir string) string {
	if dir == "" {
		return runtime.DefaultDir
	}
	return dir
}

// LoadRow reads one run's row from its journal and saved plan.
func LoadRow(dir, id string) (*Row, error) {
	rep, err := runtime.LoadReport(dir, id)
	if err != nil {
		return nil, err
	}
	var p *plan.Plan
	if b, err := os.ReadFile(filepath.Join(runtime.RunDir(dir, id), runtime.PlanFile)); err == nil {
		p = new(plan.Plan)
		if json.Unmarshal(b, p) != nil {
			p = nil
		}
	}
	return FromReport(rep, p), nil
}

// FromReport builds a row from a run's report figures and the plan it ran
// (nil when not at hand).
func FromReport(rep *runtime.Report, p *plan.Plan) *Row {
	st := rep.Status
	r := &Row{ID: st.ID, Group: st.Meta["group"], Plan: st.Plan, Variant: st.Variant, Seed: st.Seed, PlanHash: st.Hash, State: st.State,
		RealRuns: st.RealRuns, GPUHours: st.GPUHours, USD: st.RunUSD}
	var measured *runtime.Measured
	if t := st.Totals; t != nil {
		r.USD = t.USD
		measured = t.Measured
	}
	if len(rep.Best) > 0 {
		r.BestGain = ptr(rep.Best[0].Gain)
	}
	if n := len(rep.Evaluation); n > 0 {
		e := rep.Evaluation[n-1]
		r.AvgAt, r.Avg, r.BestAt, r.Best = e.AvgAt, ptr(e.Avg), e.BestAt, ptr(e.Best)
		r.AvgGot, r.BestGot = e.AvgGot, e.BestGot
	}
	if n := len(rep.Calibration); n > 0 {
		r.CalibrationMAE = ptr(rep.Calibration[n-1].MAE)
	}
	r.Suite = suiteRow(rep.Suite)
	r.Candidates, r.Tasks = st.Candidates, st.Tasks
	if st.Replay != nil {
		r.ReplayOf = st.Replay.Run
	}
	r.CriticEval = criticRow(rep.CriticEvals)
	if p != nil {
		// The plan as it applies to the run's variant: the variants of a
		// sweep each have their own.
		if h := p.VariantHash(st.Variant); h != "" {
			r.PlanHash = h
		}
		ov := map[string]any{}
		for k, v := range p.Overrides {
			ov[k] = v
		}
		for _, v := range p.Variants {
			if v.Name != st.Variant {
				continue
			}
			for k, x := range v.Overrides {
				ov[k] = x
			}
			r.RoutedShare, r.ExpectedRouted = routedShare(v, measured)
		}
		if len(ov) > 0 {
			r.Overrides = ov
		}
	}
	return r
}

// routedShare is the share of judged candidates the critics of v's routing
// loops sent to a real run, over those loops, beside the expected_routed
// the plan assumed for them (nil when they assume different shares). Both
// are nil when no routing loop judged a candidate.
func routedShare(v *plan.Variant, m *runtime.Measured) (got, want *float64) {
	if m == nil {
		return nil, nil
	}
	critics := map[string]*plan.Critic{}
	for _, c := range v.Critics {
		critics[c.Name] = c
	}
	judged, routed := 0, 0
	for _, l := range v.Loops {
		ml := m.Loops[l.Name]
		if !l.Routes || ml == nil || ml.Judged == 0 {
			continue
		}
		judged += ml.Judged
		routed += ml.Routed
		if c := critics[l.Critic]; c != nil {
			x := c.Routed.Expected
			switch {
			case want == nil && judged == ml.Judged:
				want = &x
			case want != nil && *want != x:
				want = nil
			}
		}
	}
	if judged == 0 {
		return nil, nil
	}
	return ptr(round6(float64(routed) / float64(judged))), want
}

func ptr(x float64) *float64 { return &x }

func round6(x float64) float64 {
	const k = 1e6
	if x < 0 {
		return -float64(int64(-x*k+0.5)) / k
	}
	return float64(int64(x*k+0.5)) / k
}
