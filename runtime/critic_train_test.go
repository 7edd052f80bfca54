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
	ps, err := readCriticPairs(ct)
	if err != nil || len(ps) != 2 || ps[0].Child.Mechanism != "optimizer" {
		t.Fatalf("read %d pairs (%v), want the 2 of split train", len(ps), err)
	}
	ct.Labels = "5way"
	if ps, _ := readCriticPairs(ct); len(ps) != 1 {
		t.Fatalf("a 5-way critic read %d pairs, want the one with a 5-way label", len(ps))
	}
	ct.Split = ""
	if ps, _ := readCriticPairs(ct); len(ps) != 2 {
		t.Fatalf("with no split, read %d pairs, want every 5-way labelled one", len(ps))
	}
	for name, content := range map[string]string{
		"bad label3":  strings.Replace(goodPair, `"improve"`, `"better"`, 1),
		"bad label5":  strings.Replace(goodPair, `"SmallWin"`, `"Win"`, 1),
		"not json":    "{",
		"too many":    strings.Repeat(goodPair+"\n", 5),
		"a long line": `{"task":"` + strings.Repeat("x", critic.MaxPairLine) + `"}`,
	} {
		if _, err := readCriticPairs(pairsFile(t, content)); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

func FuzzReadCriticPairs(f *testing.F) {
	f.Add(goodPair + "\n")
	f.Add("{}\n")
	f.Add(`{"label3":"tie","label5":"Tie","split":"train","child":{"edits":{"a":"b"}}}`)
	f.Fuzz(func(t *testing.T, content string) {
		ps, err := readCriticPairs(pairsFile(t, content))
		if err == nil && len(ps) > 4 {
			t.Fatalf("%d pairs past the bound", len(ps))
		}
	})
}
