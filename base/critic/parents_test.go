package critic

import "testing"

// KeepParents drops every pair of a parent with fewer improving children
// than asked, and only those, keeping the file's order; the reference
// configurations of two tasks, and of two runs, are different parents.
func TestKeepParentsDropsParentsWithFewImprovingChildren(t *testing.T) {
	pair := func(run, task, parent, label string) Pair {
		return Pair{Run: run, Env: "tiny", Task: task, ParentCandidate: parent, Parent: Program{ID: "base"}, Label3: label}
	}
	ps := []Pair{
		pair("a", "t1", "", Improve), pair("a", "t1", "", Improve), pair("a", "t1", "", Lose), pair("a", "t1", "", Improve), // 3 improve: kept
		pair("a", "t1", "p1", Improve), pair("a", "t1", "p1", Improve), pair("a", "t1", "p1", Tie), pair("a", "t1", "p1", Lose), // 2: dropped
		pair("a", "t2", "", Improve), pair("a", "t2", "", Improve), // t2's reference: 2, dropped
		pair("b", "t1", "", Improve), pair("b", "t1", "", Improve), pair("b", "t1", "", Improve), // run b's reference: kept
	}
	got, f := KeepParents(ps, 3)
	if len(got) != 7 || f.Parents != 4 || f.KeptParents != 2 || f.DroppedPairs != 6 {
		t.Fatalf("kept %d pairs, %+v; want 7 pairs, 4 parents, 2 kept, 6 pairs dropped", len(got), f)
	}
	for i, want := range []string{"a", "a", "a", "a", "b", "b", "b"} {
		if got[i].Run != want || got[i].ParentCandidate != "" || got[i].Task != "t1" {
			t.Fatalf("pair %d is %+v, want run %s's reference child of t1", i, got[i], want)
		}
	}
	if got[2].Label3 != Lose {
		t.Fatalf("a kept parent keeps its losing children too: pair 2 is %s", got[2].Label3)
	}
	if all, f := KeepParents(ps, 0); len(all) != len(ps) || f.DroppedPairs != 0 || f.KeptParents != 4 {
		t.Fatalf("min 0 kept %d of %d, %+v", len(all), len(ps), f)
	}
	if none, f := KeepParents(ps, 5); len(none) != 0 || f.DroppedPairs != len(ps) {
		t.Fatalf("min 5 kept %d, %+v", len(none), f)
	}
}
