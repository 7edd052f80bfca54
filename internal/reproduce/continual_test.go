package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/runtime/journal"
)

// TestHeldOutDir3 measures the critic a run's journal leaves: the state of
// its last critic update that did not fail (reservations and failed
// updates are passed over), the untrained critic without one, on the
// pairs the bench judges. A critic biased to call every child an
// improvement is right on the improving ones; one biased the other way
// on those that lose.
func TestHeldOutDir3(t *testing.T) {
	p, err := compileSpec(filepath.Join(specsDir, "critic-untrained.hcl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Variants[0]
	// The pairs the bench judges: the filter's, held out, the first limit.
	var ce *plan.CriticEval
	for _, ph := range v.Phases {
		if ph.CriticEval != nil {
			ce = ph.CriticEval
		}
	}
	fh, err := os.Open(ce.DataPath())
	if err != nil {
		t.Fatal(err)
	}
	all, err := critic.ReadPairs(fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := critic.KeepParents(all, ce.MinImproving)
	mechs := map[string]bool{}
	var lose, improve, n int
	for _, q := range kept {
		if q.Split != "holdout" || n == ce.Examples {
			continue
		}
		n++
		mechs[q.Child.Mechanism] = true
		switch q.Label3 {
		case critic.Lose:
			lose++
		case critic.Improve:
			improve++
		}
	}
	if n != ce.Examples || lose == 0 || improve == 0 {
		t.Fatalf("%d bench pairs (%d lose, %d improve), want %d of both labels", n, lose, improve, ce.Examples)
	}
	bias := func(b float64) []byte {
		st := &model.CriticState{Critic: 1, Bias: map[string]float64{}}
		// The mechanisms of the held-out pairs' children.
		for m := range mechs {
			st.Bias[m] = b
		}
		return st.Bytes()
	}
	type rec struct {
		State  []byte `json:"state"`
		Failed string `json:"failed,omitempty"`
	}
	dir := t.TempDir()
	run := func(id string, records map[string]rec, order []string) float64 {
		t.Helper()
		j, err := journal.Open(filepath.Join(dir, id, "journal.db"))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range order {
			if err := j.Append(journal.KindPolicy, k, records[k]); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		acc, err := heldOutDir3(dir, id, v)
		if err != nil {
			t.Fatal(err)
		}
		return acc
	}
	up, down := bias(5), bias(-5)
	got := run("a", map[string]rec{
		"critic_training/critic/sft":              {State: up},
		"critic_training/critic/grpo/0/reserve":   {},
		"critic_training/evolve.continual/sdft/1": {State: down},
		"critic_training/evolve.continual/grpo/1": {State: up, Failed: "exit code 1"},
	}, []string{"critic_training/critic/sft", "critic_training/critic/grpo/0/reserve", "critic_training/evolve.continual/sdft/1", "critic_training/evolve.continual/grpo/1"})
	wantLose, wantImprove := float64(lose)/float64(n), float64(improve)/float64(n)
	if got != wantLose {
		t.Errorf("after a lose-biased update and a failed improve-biased one: held-out Dir-3 %v, want %d/%d", got, lose, n)
	}
	if got := run("b", map[string]rec{"critic_training/critic/sft": {State: up}}, []string{"critic_training/critic/sft"}); got != wantImprove {
		t.Errorf("improve-biased: held-out Dir-3 %v, want %d/%d", got, improve, n)
	}
	untrained := run("c", nil, nil)
	if untrained <= 0 || untrained >= 1 || untrained == wantImprove || untrained == wantLose {
		t.Errorf("untrained: held-out Dir-3 %v, want a noisy critic's", untrained)
	}
}

func TestMajority(t *testing.T) {
	for _, c := range []struct {
		count map[string]int
		want  string
	}{
		{map[string]int{critic.Improve: 5, critic.Lose: 3}, critic.Improve},
		{map[string]int{critic.Lose: 5, critic.Tie: 3}, critic.Lose},
		{map[string]int{critic.Improve: 4, critic.Lose: 4}, critic.Tie},
		{map[string]int{critic.Improve: 3, critic.Tie: 3, critic.Lose: 2}, critic.Tie},
		{map[string]int{}, critic.Tie},
	} {
		if got := majority(c.count); got != c.want {
			t.Errorf("majority(%v) = %s, want %s", c.count, got, c.want)
		}
	}
}
