package contract

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/runtime/pairs"
)

// TestPairCollectionRunsWithinItsEstimate runs specs/laptop/critic-pairs.hcl,
// the two-stage pair collection, cut to 3 steps and 6 children a parent:
// every count stays inside the estimate; each program stage 1 verified is
// the parent of stage 2's children, which are measured against it and no
// other; and the filter drops exactly the parents with fewer than 3
// improving children.
func TestPairCollectionRunsWithinItsEstimate(t *testing.T) {
	t.Parallel()
	path := writeVariant(t, filepath.Join(specsDir(t), "laptop", "critic-pairs.hcl"),
		[2]string{"config = { steps = 100 }", fastConfig},
		[2]string{"rounds                  = 10", "rounds                  = 3"},
		[2]string{"children_per_parent     = 20", "children_per_parent     = 6"})
	p, ds := compile(t, path)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res, dir := checkRun(t, p, 0)
	ps, _, err := pairs.Read(dir, []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	stage1 := map[string]critic.Pair{}
	var stage2 []critic.Pair
	for _, pr := range ps {
		if strings.Contains(pr.Candidate, "/children/") {
			stage2 = append(stage2, pr)
		} else {
			stage1[pr.Candidate] = pr
		}
	}
	m := res.Totals.Measured.Loops["collect"]
	if m == nil || m.ChildParents != len(stage1) || m.ChildParents == 0 || m.ChildrenVerified != len(stage2) || m.ChildrenVerified > 6*m.ChildParents {
		t.Fatalf("measured %+v; %d stage-1 and %d stage-2 pairs: want a parent of children per stage-1 program, each child verified a pair", m, len(stage1), len(stage2))
	}
	// 4 tasks x 3 steps, then 6 children proposed per verified program.
	if m.Candidates != 4*3+6*m.ChildParents {
		t.Errorf("candidates %d, want %d", m.Candidates, 4*3+6*m.ChildParents)
	}
	children := map[string]int{}
	for _, c := range stage2 {
		parent, ok := stage1[c.ParentCandidate]
		if !ok || !strings.HasPrefix(c.Candidate, c.ParentCandidate+"/children/") {
			t.Fatalf("stage-2 child %s has parent %q, not the stage-1 program it is keyed under", c.Candidate, c.ParentCandidate)
		}
		if c.Parent.Metric != parent.Child.Metric {
			t.Fatalf("child %s measured against %g, its parent measured %g", c.Candidate, c.Parent.Metric, parent.Child.Metric)
		}
		children[c.ParentCandidate]++
	}
	for cand, n := range children {
		if n > 6 {
			t.Errorf("parent %s has %d stage-2 children, at most 6", cand, n)
		}
	}
	kept, f := critic.KeepParents(ps, 3)
	improving := map[string]int{}
	for i := range ps {
		if ps[i].Label3 == critic.Improve {
			improving[critic.ParentKey(&ps[i])]++
		}
	}
	for i := range kept {
		if improving[critic.ParentKey(&kept[i])] < 3 {
			t.Fatalf("kept a child of a parent with %d improving children", improving[critic.ParentKey(&kept[i])])
		}
	}
	if len(kept)+f.DroppedPairs != len(ps) {
		t.Errorf("kept %d and dropped %d of %d pairs", len(kept), f.DroppedPairs, len(ps))
	}
}
