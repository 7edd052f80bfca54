package runtime

import (
	"math"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// The suite table has the shape of the critics paper's Tables 2 and 15:
// a row per domain (its tasks' mean normalised score), the domain average
// (each domain once, however many tasks it has), and the average of the
// tasks held out from critic training; an unscored task has its row and
// no part in any average. The best scores below are Table 15's Base 9B
// column, one task a domain on bounds 0 to 100 (Deep Learning's 41.30 the
// mean of two tasks), so the domain average is the paper's 18.75.
func TestSuiteTableHasThePapersShape(t *testing.T) {
	type task struct {
		name, domain, critic string
		best                 float64
		unscored             bool
	}
	tasks := []task{
		{"lm", "language-models", "heldout", 9.24, false},
		{"rob", "robotics", "heldout", 7.91, false},
		{"vg", "vision-and-generation", "sft", 11.66, false},
		{"rl", "reinforcement-learning", "heldout", 0, true},
		{"sys", "ml-systems-and-efficient-ml", "heldout", 21.88, false},
		{"sci", "ai-for-science", "heldout", 12.49, false},
		{"opt", "optimization-and-theory", "grpo", 18.56, false},
		{"cal", "classical-and-adaptive-learning", "sft", 16.95, false},
		{"ts", "time-series-and-forecasting", "sft", 9.21, false},
		{"scr", "structured-and-causal-reasoning", "grpo", 34.48, false},
		{"dl1", "deep-learning", "heldout", 31.30, false},
		{"dl2", "deep-learning", "sft", 51.30, false},
		{"tw", "trustworthy-learning", "grpo", 22.60, false},
	}
	env := &plan.Environment{Name: "mls_lite", Direction: plan.Maximize}
	var runs []journal.Run
	for _, tk := range tasks {
		zero := 0.0
		env.Tasks = append(env.Tasks, &plan.Task{Name: tk.name, Split: "train", Direction: plan.Maximize, Domain: tk.domain,
			CriticSplit: tk.critic, Unscored: tk.unscored, Baseline: &zero, Bounds: &plan.Bounds{Low: 0, High: 100}})
		runs = append(runs, journal.Run{Key: "evolve/x/" + tk.name, Reservation: journal.Reservation{Env: "mls_lite", Task: tk.name, Proposal: &plugins.Proposal{}, Baseline: &zero},
			Result: &plugins.RunResult{Status: plugins.StatusFinished, Metric: tk.best}})
	}
	s := suiteScoresOf([]*plan.Environment{env}, runs)
	if s == nil {
		t.Fatal("no scores")
	}
	if len(s.Tasks) != len(tasks) {
		t.Fatalf("%d task rows, want %d: an unscored task keeps its row", len(s.Tasks), len(tasks))
	}
	if len(s.Domains) != 11 {
		t.Fatalf("%d domain rows, want 11: the unscored task's domain has no row", len(s.Domains))
	}
	best := 1
	for _, d := range s.Domains {
		if d.Name == "deep-learning" && (d.Tasks != 2 || math.Abs(*d.Normalised[best]-0.413) > 1e-9) {
			t.Errorf("deep-learning = %d tasks, %v; want 2 and 0.413", d.Tasks, *d.Normalised[best])
		}
	}
	if s.Average == nil || s.Average.Tasks != 12 {
		t.Fatalf("domain average %+v, want one over the 12 scored tasks", s.Average)
	}
	// Table 15's Domain Average for Base 9B: 18.75 (206.28 / 11).
	if got := *s.Average.Normalised[best]; math.Abs(got*100-18.75) > 0.005 {
		t.Errorf("domain average %.4f, want 0.1875 (the paper's 18.75)", got)
	}
	// Over the 12 scored tasks the task mean would be 20.63: the average
	// counts each domain once.
	h := s.CriticHeldout
	if h == nil || h.Tasks != 5 {
		t.Fatalf("critic held-out %+v, want 5 scored tasks (the unscored one left out)", h)
	}
	if want := (9.24 + 7.91 + 21.88 + 12.49 + 31.30) / 500; math.Abs(*h.Normalised[best]-want) > 1e-6 {
		t.Errorf("critic held-out %v, want %v", *h.Normalised[best], want)
	}
	if s.Holdout != nil {
		t.Errorf("holdout %+v: every task is of split train", s.Holdout)
	}
}

// A suite without critic marks has no critic held-out row.
func TestSuiteTableWithoutCriticMarks(t *testing.T) {
	zero := 0.0
	env := &plan.Environment{Name: "e", Tasks: []*plan.Task{{Name: "a", Split: "train", Direction: plan.Maximize, Domain: "d", Baseline: &zero, Bounds: &plan.Bounds{Low: 0, High: 1}}}}
	s := suiteScoresOf([]*plan.Environment{env}, nil)
	if s == nil || s.CriticHeldout != nil || s.Average == nil || s.Average.Tasks != 1 {
		t.Fatalf("scores %+v", s)
	}
}
