package runtime

import (
	"github.com/assay-lang/assay/base/critic"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
)

const goodPair = `{"env":"e","task":"t","parent":{"id":"base"},"child":{"id":"c","mechanism":"optimizer"},"label3":"improve","label5":"SmallWin","split":"train"}`

func pairsFile(t testing.TB, content string) *plan.CriticTraining {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pairs.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return &plan.CriticTraining{Name: "c", Pairs: path, Split: "train", Labels: "3way", MaxPairs: 4}
}

// A pairs file is read within its bounds, and a bad line is refused with
// its line number, never taken as a pair.
func TestReadCriticPairs(t *testing.T) {
	holdout := strings.Replace(goodPair, `"train"`, `"holdout"`, 1)
	no5 := strings.Replace(goodPair, `,"label5":"SmallWin"`, "", 1)
	ct := pairsFile(t, goodPair+"\n\n"+holdout+"\n"+no5+"\n")
	ps, _, err := readCriticPairs(ct)
	if err != nil || len(ps) != 2 || ps[0].Child.Mechanism != "optimizer" {
		t.Fatalf("read %d pairs (%v), want the 2 of split train", len(ps), err)
	}
	ct.Labels = "5way"
	if ps, _, _ := readCriticPairs(ct); len(ps) != 1 {
		t.Fatalf("a 5-way critic read %d pairs, want the one with a 5-way label", len(ps))
	}
	ct.Split = ""
	if ps, _, _ := readCriticPairs(ct); len(ps) != 2 {
		t.Fatalf("with no split, read %d pairs, want every 5-way labelled one", len(ps))
	}
	for name, content := range map[string]string{
		"bad label3":  strings.Replace(goodPair, `"improve"`, `"better"`, 1),
		"bad label5":  strings.Replace(goodPair, `"SmallWin"`, `"Win"`, 1),
		"not json":    "{",
		"too many":    strings.Repeat(goodPair+"\n", 5),
		"a long line": `{"task":"` + strings.Repeat("x", critic.MaxPairLine) + `"}`,
	} {
		if _, _, err := readCriticPairs(pairsFile(t, content)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

func FuzzReadCriticPairs(f *testing.F) {
	f.Add(goodPair + "\n")
	f.Add("{}\n")
	f.Add(`{"label3":"tie","label5":"Tie","split":"train","child":{"edits":{"a":"b"}}}`)
	f.Fuzz(func(t *testing.T, content string) {
		ps, _, err := readCriticPairs(pairsFile(t, content))
		if err == nil && len(ps) > 4 {
			t.Fatalf("%d pairs past the bound", len(ps))
		}
	})
}

// min_improving_children leaves out the pairs of a parent with fewer
// improving children in the file before the split and the examples are
// taken, and the figures say how many parents and pairs it dropped.
func TestReadCriticPairsDropsParentsWithFewImprovingChildren(t *testing.T) {
	child := func(parent, label string) string {
		return strings.NewReplacer(`"parent":{"id":"base"}`, `"parent_candidate":"`+parent+`","parent":{"id":"`+parent+`"}`, `"improve"`, `"`+label+`"`).Replace(goodPair)
	}
	var lines []string
	for _, l := range []string{"improve", "lose", "improve", "improve", "lose"} { // p1: 3 improving of 5
		lines = append(lines, child("p1", l))
	}
	for _, l := range []string{"improve", "improve", "lose"} { // p2: 2 of 3
		lines = append(lines, child("p2", l))
	}
	ct := pairsFile(t, strings.Join(lines, "\n")+"\n")
	ct.MaxPairs = 16
	ps, kept, err := readCriticPairs(ct)
	if err != nil || len(ps) != 8 || kept.DroppedPairs != 0 {
		t.Fatalf("with no filter read %d pairs (%v, %+v), want all 8", len(ps), err, kept)
	}
	ct.MinImproving = 3
	ps, kept, err = readCriticPairs(ct)
	if err != nil || len(ps) != 5 || kept.Parents != 2 || kept.KeptParents != 1 || kept.DroppedPairs != 3 {
		t.Fatalf("min 3 read %d pairs (%v, %+v), want p1's 5, p2's 3 dropped", len(ps), err, kept)
	}
	for _, p := range ps {
		if p.ParentCandidate != "p1" {
			t.Fatalf("kept a child of %s", p.ParentCandidate)
		}
	}
	if m := poolFigures(ps, kept); m.Pairs != 5 || m.Improve != 3 || m.KeptParents != 1 {
		t.Fatalf("pool figures %+v", m)
	}
	ct.Examples = 6
	if _, _, err := loadCriticPairs(ct); err == nil || !strings.Contains(err.Error(), "fewer than 3 improving children") {
		t.Fatalf("6 examples of 5 kept pairs: %v", err)
	}
}
