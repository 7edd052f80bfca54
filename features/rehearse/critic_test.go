package rehearse

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

// A rehearsal's synthetic pairs of a class-balanced training hold every
// class in its GRPO pool, as the run requires, with labels of one pair
// that agree (a 5-way label's direction is its 3-way one).
func TestSimPairsBalanced(t *testing.T) {
	dir3 := map[string]string{"BigWin": "improve", "MediumWin": "improve", "SmallWin": "improve", "Tie": "tie", "Lose": "lose"}
	for _, b := range []*plan.CriticBalance{{Space: "3way", Classes: []string{"improve", "tie", "lose"}}, {Space: "5way", Classes: []string{"BigWin", "Lose"}}} {
		ct := &plan.CriticTraining{Name: "c", Examples: 4, GRPO: &plan.CriticUpdate{Batch: 6, Balance: b}}
		path := filepath.Join(t.TempDir(), "p.jsonl")
		if err := writeSimPairs(path, []plan.TaskRef{{Env: "e", Task: "t"}}, 10, "train", true, "c", 1, balanced(ct)); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		seen := map[string]int{}
		for i := 0; sc.Scan(); i++ {
			var p struct{ Label3, Label5 string }
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if dir3[p.Label5] != p.Label3 {
				t.Errorf("pair %d: label5 %s with label3 %s", i, p.Label5, p.Label3)
			}
			if i >= ct.Examples {
				seen[map[bool]string{true: p.Label3, false: p.Label5}[b.Space == "3way"]]++
			}
		}
		f.Close()
		for _, c := range b.Classes {
			if seen[c] != 6/len(b.Classes) {
				t.Errorf("%s: the GRPO pool holds %d pairs of %s, want %d (%v)", b.Space, seen[c], c, 6/len(b.Classes), seen)
			}
		}
	}
}
