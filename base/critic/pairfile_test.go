package critic

import (
	"bytes"
	"os"
	"testing"
)

// The shipped pairs file reads, and round-trips as FuzzReadPairs checks.
func TestReadPairsShipped(t *testing.T) {
	b, err := os.ReadFile("../../specs/laptop/data/critic-pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ReadPairs(bytes.NewReader(b))
	if err != nil || len(ps) == 0 {
		t.Fatalf("%d pairs, %v", len(ps), err)
	}
	checkPairs(t, ps)
}

// FuzzReadPairs: any input is read or refused, never a panic; what is
// read has valid labels, and written and read again it writes the same.
// Its seeds are short: the fuzzer minimizes each new input in time
// quadratic in its length, and a seed of the shipped file's lines (2.5 kB)
// stalled it for most of a 30 s run (TestReadPairsShipped reads the file).
func FuzzReadPairs(f *testing.F) {
	var full bytes.Buffer
	if err := WritePairs(&full, []Pair{{Task: "t", Parent: Program{Commit: "a"}, Child: Program{Commit: "b", Edits: map[string]string{"lr": "2"}},
		Label3: "improve", Label5: "SmallWin", Split: "train"}}); err != nil {
		f.Fatal(err)
	}
	f.Add(full.Bytes())
	f.Add([]byte(`{"label3":"improve","label5":"BigWin","task":"t","parent":{"commit":"a"},"child":{"commit":"b","edits":{"lr":"2"}}}` + "\n\n"))
	f.Add([]byte(`{"label3":"tie"}` + "\r\n" + `  {"label3":"lose"}  `))
	f.Add([]byte(`{"label3":"better"}`))
	f.Add([]byte(`{"label3":"lose","label5":"Huge"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ReadPairs(bytes.NewReader(b))
		if err != nil {
			return
		}
		checkPairs(t, ps)
	})
}

// checkPairs: pairs read have valid labels, and written and read again
// they write the same.
func checkPairs(t *testing.T, ps []Pair) {
	t.Helper()
	for i, p := range ps {
		if Rank(Space3, p.Label3) < 0 || (p.Label5 != "" && Rank(Space5, p.Label5) < 0) {
			t.Fatalf("pair %d read with labels %q/%q", i, p.Label3, p.Label5)
		}
	}
	var buf bytes.Buffer
	if err := WritePairs(&buf, ps); err != nil {
		t.Fatalf("a pair read cannot be written: %v", err)
	}
	first := buf.String()
	again, err := ReadPairs(&buf)
	if err != nil {
		t.Fatalf("written pairs do not read back: %v", err)
	}
	// Compared as written: an empty map and an absent one are the
	// same pair.
	buf.Reset()
	if err := WritePairs(&buf, again); err != nil || buf.String() != first {
		t.Fatalf("pairs changed on a round trip (%v):\n%s\n%s", err, first, buf.String())
	}
}
