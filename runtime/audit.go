package runtime

import (
	"math"
	"sort"
)

// auditPicks marks the candidates an RL screen audits: of the eligible
// ones (judged, feasible, not routed), the floor of share times their
// number, those first in an order drawn from the seed and each one's key,
// so a run and its resume audit the same candidates whatever order they
// were judged in. weight is how many unrouted candidates each audited one
// stands for (eligible / audited), for the error recall (critPoint).
func auditPicks(seed int64, share float64, keys []string, eligible []bool) (picks []bool, weight float64) {
	picks = make([]bool, len(keys))
	var idx []int
	for i, ok := range eligible {
		if ok {
			idx = append(idx, i)
		}
	}
	n := int(math.Floor(share*float64(len(idx)) + 1e-9))
	if n <= 0 {
		return picks, 0
	}
	sort.Slice(idx, func(a, b int) bool {
		da, db := derive(seed, "audit/"+keys[idx[a]]), derive(seed, "audit/"+keys[idx[b]])
		if da != db {
			return da < db
		}
		return keys[idx[a]] < keys[idx[b]]
	})
	for _, i := range idx[:n] {
		picks[i] = true
	}
	return picks, float64(len(idx)) / float64(n)
}

// audit picks the candidates of a screened batch that the loop's audit
// share verifies: feasible, judged and not routed (sel).
func (r *rlLoop) audit(runs []realRun, feasible, sel []bool) ([]bool, float64) {
	keys := make([]string, len(runs))
	eligible := make([]bool, len(runs))
	for i := range runs {
		keys[i] = runs[i].Key
		eligible[i] = r.l.AuditShare > 0 && feasible[i] && !sel[i]
	}
	return auditPicks(r.s.v.Seed, r.l.AuditShare, keys, eligible)
}

// orEach is a OR b, element by element.
func orEach(a, b []bool) []bool {
	out := make([]bool, len(a))
	for i := range a {
		out[i] = a[i] || b[i]
	}
	return out
}
