package compiler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// Every golden plan instructs the runtime within its own estimate: an RL
// loop with fixed steps runs exactly its count, one that spends the
// budget at most the count's high (open, 0, only where the count is
// unbounded), and every task carries its environment's direction.
func TestPlansInstructWithinTheEstimate(t *testing.T) {
	files, err := filepath.Glob("testdata/plans/*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("golden plans: %d, %v", len(files), err)
	}
	var budgetLoops, open int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p plan.Plan
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, v := range p.Variants {
			for _, l := range v.Loops {
				if l.Kind != "rl" {
					continue
				}
				st := l.Steps
				switch {
				case !l.UntilBudget:
					if float64(l.RunSteps) != st.Expected || st.Low != st.High || st.Low != st.Expected || l.RunSteps < 1 {
						t.Errorf("%s %s: loop %s runs %d steps, estimated %+v", f, v.Name, l.Name, l.RunSteps, st)
					}
				case l.RunSteps == 0:
					open++
					if st.Bounded() {
						t.Errorf("%s %s: loop %s runs until the budget alone stops it, though its steps are bounded at %v", f, v.Name, l.Name, st.High)
					}
				default:
					budgetLoops++
					if float64(l.RunSteps) < st.Low || float64(l.RunSteps) > st.High || float64(l.RunSteps+1) <= st.High {
						t.Errorf("%s %s: loop %s runs at most %d steps, estimated %+v", f, v.Name, l.Name, l.RunSteps, st)
					}
				}
			}
			for _, e := range v.Envs {
				for _, task := range e.Tasks {
					if task.Direction != e.Direction || (task.Direction != plan.Minimize && task.Direction != plan.Maximize) {
						t.Errorf("%s %s: task %s of %s has direction %q, its environment %q", f, v.Name, task.Name, e.Name, task.Direction, e.Direction)
					}
				}
			}
		}
	}
	if budgetLoops == 0 {
		t.Error("no golden plan has a bounded loop that spends the budget; the check above saw none")
	}
	t.Logf("%d bounded and %d open loops that spend the budget", budgetLoops, open)
}
