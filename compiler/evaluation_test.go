package compiler

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// TestEvaluationArmsCounted: every arm makes k proposals per state of
// every evaluated task; each is proposed by the arm's role, built, run and
// (with a predictor) predicted, and the plan and its counts say so.
func TestEvaluationArmsCounted(t *testing.T) {
	base := readBase(t)
	plain, ds := compileSource(t, "base.hcl", []byte(base))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	src, _ := mutate(t, base, "evaluation {\n  avg_at  = 2\n  best_at = 4\n}",
		"evaluation {\n  avg_at  = 2\n  best_at = 4\n  states = 3\n  base = role.proposer\n  icl = role.proposer\n  icl_records = 5\n  predictor = role.rwm\n}")
	src = strings.Replace(src, "real_runs = 40", "real_runs = 400", 1)
	p, ds := compileSource(t, "base.hcl", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	ev := p.Variants[0].PhaseOf(plan.PhaseEvaluation).Evaluation
	want := []plan.EvalArm{{Name: "policy", Proposer: "proposer"}, {Name: "base", Proposer: "proposer", Untrained: true}, {Name: "icl", Proposer: "proposer", Untrained: true, Records: 5}}
	if ev.States != 3 || ev.Normalize != "scale" || ev.Predictor != "rwm" || len(ev.Arms) != 3 {
		t.Fatalf("evaluation %+v", ev)
	}
	for i := range want {
		if ev.Arms[i] != want[i] {
			t.Errorf("arm %d = %+v, want %+v", i, ev.Arms[i], want[i])
		}
	}
	phase := func(p *plan.Plan) *plan.Phase {
		for _, ph := range p.Variants[0].Phases {
			if ph.Kind == plan.PhaseEvaluation {
				return ph
			}
		}
		t.Fatal("no evaluation phase")
		return nil
	}
	a, b := phase(plain), phase(p)
	// 3 states x 3 arms: 9 times the proposals, runs and builds of one
	// policy arm on one state; the world model predicts what builds.
	if got, want := b.Calls.Candidates.Expected, 9*a.Calls.Candidates.Expected; got != want {
		t.Errorf("candidates %v, want %v", got, want)
	}
	if got, want := b.Calls.LLM["proposer"].Expected, 9*a.Calls.LLM["proposer"].Expected; got != want {
		t.Errorf("proposer calls %v, want %v", got, want)
	}
	var runsA, runsB float64
	for _, c := range a.Calls.RealRuns {
		runsA += c.Expected
	}
	for _, c := range b.Calls.RealRuns {
		runsB += c.Expected
	}
	if runsB != 9*runsA || runsB == 0 {
		t.Errorf("real runs %v, want 9 x %v", runsB, runsA)
	}
	if got := b.Calls.LLM["rwm"].Expected; got != runsB {
		t.Errorf("rwm calls %v, want one per run that builds (%v)", got, runsB)
	}
	if plain.Hash == p.Hash {
		t.Error("the arms did not change the plan")
	}
}

// TestICLRecordsWarning: an in-context arm that asks for more records than
// the seed and calibration runs make is warned about, at icl_records.
func TestICLRecordsWarning(t *testing.T) {
	b, err := os.ReadFile("../specs/quickstart.hcl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    int
		warn bool
	}{{34, false}, {35, true}} {
		src, line := mutate(t, string(b), "evaluation {\n", fmt.Sprintf("evaluation {\n  icl = role.proposer\n  icl_records = %d\n", c.k))
		_, ds := compileSource(t, "quickstart.hcl", []byte(src))
		var got bool
		for _, d := range ds {
			if d.Code == CodeICLRecords {
				got = true
				if d.Range.Start.Line != line+2 {
					t.Errorf("warning at line %d, want %d (icl_records)", d.Range.Start.Line, line+2)
				}
			}
		}
		if ds.HasErrors() || got != c.warn {
			t.Errorf("icl_records = %d (16 seed + 18 calibration runs): warned %v, want %v\n%s", c.k, got, c.warn, ds.Format(0))
		}
	}
}
