package runtime

import (
	"fmt"
	"github.com/assay-lang/assay/base/critic"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// balancePool is a pool of 7 lose pairs, 2 improve and 1 tie, each child
// named by its label and index.
func balancePool() []critic.Pair {
	labels := []string{"lose", "lose", "improve", "lose", "lose", "tie", "lose", "lose", "improve", "lose"}
	pool := make([]critic.Pair, len(labels))
	for i, l := range labels {
		pool[i] = critic.Pair{Task: "t", Child: critic.Program{ID: fmt.Sprintf("%s-%d", l, i)}, Label3: l, Split: "train"}
	}
	return pool
}

func balancedTraining(batch int, classes ...string) *plan.CriticTraining {
	return &plan.CriticTraining{Name: "c", Labels: "3way", GRPO: &plan.CriticUpdate{Steps: 6, Batch: batch, Group: 2,
		Balance: &plan.CriticBalance{Space: "3way", Classes: classes}}}
}

// With balance, each step draws its pairs equally from the classes (the
// remainder in turn, so every three steps are equal), each class's pairs
// once a pass, whatever the pool's mix; without it, in order.
func TestGRPOBatchesBalanced(t *testing.T) {
	pool := balancePool()
	ct := balancedTraining(8, "improve", "tie", "lose")
	cb, err := newCTBalance(ct, pool)
	if err != nil {
		t.Fatal(err)
	}
	total := map[string]int{}
	drawn := map[string][]string{}
	for step := range 6 {
		b := cb.batch(7, ct, pool, step)
		if len(b) != 8 {
			t.Fatalf("step %d: %d pairs, want 8", step, len(b))
		}
		n := map[string]int{}
		for _, p := range b {
			n[p.Label3]++
			drawn[p.Label3] = append(drawn[p.Label3], p.Child.ID)
		}
		for _, l := range ct.GRPO.Balance.Classes {
			if n[l] < 2 || n[l] > 3 {
				t.Errorf("step %d: %d pairs of %s, want 8/3 rounded (%v)", step, n[l], l, n)
			}
			total[l] += n[l]
		}
		if step%3 == 2 {
			for _, l := range ct.GRPO.Balance.Classes {
				if total[l] != 8*(step+1)/3 {
					t.Errorf("after step %d: %d pairs of %s, want %d", step, total[l], l, 8*(step+1)/3)
				}
			}
		}
	}
	// Each pass over a class draws each of its pairs once.
	for l, ids := range drawn {
		size := map[string]int{"improve": 2, "tie": 1, "lose": 7}[l]
		for s := 0; s+size <= len(ids); s += size {
			pass := slices.Clone(ids[s : s+size])
			slices.Sort(pass)
			if len(slices.Compact(pass)) != size {
				t.Errorf("%s: pass %v draws a pair twice", l, ids[s:s+size])
			}
		}
	}
	var plain *ctBalance
	if b := plain.batch(7, ct, pool, 1); b[0] != &pool[8] || b[2] != &pool[0] {
		t.Errorf("unbalanced step 1 starts with %s, %s: want the pool in order from pair 8", b[0].Child.ID, b[2].Child.ID)
	}
}

// A batch depends on the run's seed, the training and the step alone: a
// resumed run, which reads the file again, draws every step as the
// uninterrupted run did; another seed draws others.
func TestGRPOBatchesResume(t *testing.T) {
	pool := balancePool()
	ct := balancedTraining(4, "improve", "lose")
	ids := func(seed int64, steps []int) string {
		cb, err := newCTBalance(ct, balancePool())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range steps {
			for _, p := range cb.batch(seed, ct, pool, s) {
				out = append(out, p.Child.ID)
			}
		}
		return strings.Join(out, " ")
	}
	whole := ids(3, []int{0, 1, 2, 3, 4, 5})
	if resumed := ids(3, []int{0, 1}) + " " + ids(3, []int{2, 3, 4, 5}); resumed != whole {
		t.Errorf("resumed batches\n%s\nwant\n%s", resumed, whole)
	}
	if other := ids(4, []int{0, 1, 2, 3, 4, 5}); other == whole {
		t.Errorf("seeds 3 and 4 drew the same batches %s", whole)
	}
}

// A class the pool has no pair of is refused before any call, naming it
// and what to do; so is one the file lacks at the run's preflight.
func TestGRPOBalanceEmptyClass(t *testing.T) {
	pool := balancePool()[:5] // lose and improve only
	_, err := newCTBalance(balancedTraining(6, "improve", "tie", "lose"), pool)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), `class "tie"`) || !strings.Contains(err.Error(), "remove the class from balance") {
		t.Fatalf("err = %v, want a permanent refusal of class tie", err)
	}
	line := func(l string) string { return strings.Replace(goodPair, `"improve"`, `"`+l+`"`, 1) }
	ct := pairsFile(t, line("improve")+"\n"+line("lose")+"\n"+line("lose")+"\n")
	ct.Examples = 1
	ct.GRPO = balancedTraining(2, "improve", "lose").GRPO
	if _, _, err := loadCriticPairs(ct); err == nil || !strings.Contains(err.Error(), `class "improve"`) {
		t.Fatalf("load: %v, want the GRPO pool (after the SFT's pair) refused for no improve pair", err)
	}
	ct.Examples = 0
	if _, _, err := loadCriticPairs(ct); err != nil {
		t.Fatalf("load: %v", err)
	}
}
