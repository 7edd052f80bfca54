package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
)

// A pairs file that gives each pair's teacher-assistance stratum is
// scored per stratum too (seed 002's table 12): a critic right on every
// sampled pair and wrong on every guided one shows 1 and 0 there, and
// the mean over all pairs; pairs without a stratum make no row.
func TestScoreCriticByStratum(t *testing.T) {
	c := &plan.Critic{Name: "screen", Role: "critic", Votes: 1, Labels: critic.Space3}
	var labels []critic.Example
	var votes [][]string
	add := func(stratum, label, vote string, n int) {
		for range n {
			labels = append(labels, critic.Example{Label3: label, Stratum: stratum})
			votes = append(votes, []string{vote})
		}
	}
	add(critic.Sampled, critic.Improve, critic.Improve, 3)
	add(critic.Sampled, critic.Lose, critic.Lose, 1)
	add(critic.Guided, critic.Improve, critic.Lose, 2)
	add("", critic.Lose, critic.Lose, 2)
	cr, err := ScoreCritic(c, votes, labels, []int{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.ByStratum) != 2 || cr.ByStratum[0].Stratum != critic.Sampled || cr.ByStratum[1].Stratum != critic.Guided {
		t.Fatalf("strata %+v, want sampled then guided", cr.ByStratum)
	}
	if s := cr.ByStratum[0]; s.Examples != 4 || s.Metrics[0].Dir3 != 1 {
		t.Errorf("sampled: %d pairs, Dir-3 %v; want 4 and 1", s.Examples, s.Metrics[0].Dir3)
	}
	if g := cr.ByStratum[1]; g.Examples != 2 || g.Metrics[0].Dir3 != 0 {
		t.Errorf("guided: %d pairs, Dir-3 %v; want 2 and 0", g.Examples, g.Metrics[0].Dir3)
	}
	if all := cr.Metrics[0].Dir3; all != 6.0/8 {
		t.Errorf("Dir-3 over all pairs %v, want 6/8", all)
	}
	// Without strata: no rows.
	for i := range labels {
		labels[i].Stratum = ""
	}
	if cr, _ := ScoreCritic(c, votes, labels, []int{1}, nil); cr.ByStratum != nil {
		t.Errorf("pairs without strata gave %+v", cr.ByStratum)
	}
}

// A stratum reaches the examples from the pairs file; one outside the
// three is refused at its line.
func TestPairsStratum(t *testing.T) {
	line := `{"run":"r","plan":"p","plan_hash":"h","env":"e","task":"t","candidate":"c","run_key":"k","minimize":true,"parent":{"id":"a","text":"x"},"child":{"id":"b","text":"y"},"idea":"y","label3":"lose","split":"holdout","stratum":"%s"}`
	ps, err := critic.ReadPairs(strings.NewReader(strings.Replace(line, "%s", "revised", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, labels, _ := CriticExamples(ps, "all", 0); len(labels) != 1 || labels[0].Stratum != critic.Revised {
		t.Errorf("examples %+v, want one of stratum revised", labels)
	}
	_, err = critic.ReadPairs(strings.NewReader("\n" + strings.Replace(line, "%s", "hinted", 1)))
	if err == nil || !strings.Contains(err.Error(), `line 2: stratum "hinted": use sampled, revised or guided`) {
		t.Errorf("an unknown stratum: %v", err)
	}
}
