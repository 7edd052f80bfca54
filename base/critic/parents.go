package critic

// ParentKey is the parent a pair's child was made from: its run, its task
// and the parent's candidate key (the task's reference configuration when
// it has none). Children of one parent share it.
func ParentKey(p *Pair) string {
	parent := p.ParentCandidate
	if parent == "" {
		parent = "reference:" + p.Parent.ID
	}
	return p.Run + "\x00" + p.Env + "/" + p.Task + "\x00" + parent
}

// Filtered is what KeepParents left out: the parents with fewer improving
// children than asked, and their pairs.
type Filtered struct {
	Parents      int `json:"parents"`
	KeptParents  int `json:"kept_parents"`
	DroppedPairs int `json:"dropped_pairs"`
}

// KeepParents is ps without the pairs of parents that have fewer than min
// children labelled improve among ps (the critics paper's filter of its
// SFT and evaluation pool, appendix C.2: parents with fewer than three
// improving children are dropped), in ps's order. Infeasible children
// make no pair (docs/pairs.md), so they count as no child. A min of 0 or
// less keeps every pair.
func KeepParents(ps []Pair, min int) ([]Pair, Filtered) {
	improving := map[string]int{}
	for i := range ps {
		k := ParentKey(&ps[i])
		if _, ok := improving[k]; !ok {
			improving[k] = 0
		}
		if ps[i].Label3 == Improve {
			improving[k]++
		}
	}
	f := Filtered{Parents: len(improving)}
	for _, n := range improving {
		if n >= min {
			f.KeptParents++
		}
	}
	if min <= 0 {
		return ps, f
	}
	out := make([]Pair, 0, len(ps))
	for i := range ps {
		if improving[ParentKey(&ps[i])] >= min {
			out = append(out, ps[i])
		} else {
			f.DroppedPairs++
		}
	}
	return out, f
}
