package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
)

// grpoPool is a critic training's GRPO pool: the pairs after the SFT's
// examples, or every pair when the SFT takes them all.
func grpoPool(ct *plan.CriticTraining, pairs []critic.Pair) []critic.Pair {
	if pool := pairs[ct.Examples:]; len(pool) > 0 {
		return pool
	}
	return pairs
}

// ctBalance is a class-balanced GRPO pool (plan.CriticBalance): the pool's
// indices of each class's pairs, in file order.
type ctBalance struct {
	b       *plan.CriticBalance
	classes [][]int
}

// newCTBalance sorts the pool by class; a class with no pair is refused,
// as a permanent error: no step could draw it.
func newCTBalance(ct *plan.CriticTraining, pool []critic.Pair) (*ctBalance, error) {
	if ct.GRPO == nil || ct.GRPO.Balance == nil {
		return nil, nil
	}
	b := ct.GRPO.Balance
	cb := &ctBalance{b: b, classes: make([][]int, len(b.Classes))}
	for i := range pool {
		if c := slices.Index(b.Classes, pairLabel(&pool[i], b.Space)); c >= 0 {
			cb.classes[c] = append(cb.classes[c], i)
		}
	}
	var empty, counts []string
	for c, idx := range cb.classes {
		counts = append(counts, fmt.Sprintf("%s %d", b.Classes[c], len(idx)))
		if len(idx) == 0 {
			empty = append(empty, fmt.Sprintf("%q", b.Classes[c]))
		}
	}
	if len(empty) > 0 {
		field := "label3"
		if b.Space == critic.Space5 {
			field = "label5"
		}
		return nil, fmt.Errorf("%w: critic training %s: grpo.balance draws class %s, and its GRPO pool (%d pairs of %s) has no pair with that %s (%s); remove the class from balance, or supply pairs of it (assay export pairs)",
			errPermanent, ct.Name, strings.Join(empty, ", "), len(pool), ct.Pairs, field, strings.Join(counts, ", "))
	}
	return cb, nil
}

// batch is GRPO step t's pairs: without balance, pairs_per_step in order
// from the pool, from its first again when it runs out; with it, each
// class's share of the step (plan.CriticBalance), the classes taking
// turns pair by pair.
func (cb *ctBalance) batch(seed int64, ct *plan.CriticTraining, pool []critic.Pair, t int) []*critic.Pair {
	n := ct.GRPO.Batch
	out := make([]*critic.Pair, 0, n)
	if cb == nil {
		for j := range n {
			out = append(out, &pool[(t*n+j)%len(pool)])
		}
		return out
	}
	k := len(cb.classes)
	base, rem := n/k, n%k
	per := make([][]int, k)
	for c, idx := range cb.classes {
		count := base
		// This step's extra pairs go to classes t*rem .. t*rem+rem-1
		// (mod k); the steps before it gave class c one each time that
		// range passed it.
		if (c-t*rem%k+k)%k < rem {
			count++
		}
		drawn := t*base + (t*rem+k-1-c)/k
		perms := map[int][]int{}
		for i := range count {
			d := drawn + i
			pass := d / len(idx)
			p, ok := perms[pass]
			if !ok {
				g := rng(seed, fmt.Sprintf("%s%s/balance/%s/%d", criticTrainingKey, ct.Name, cb.b.Classes[c], pass))
				p = g.Perm(len(idx))
				perms[pass] = p
			}
			per[c] = append(per[c], idx[p[d%len(idx)]])
		}
	}
	for i := 0; i <= base; i++ {
		for c := range per {
			if i < len(per[c]) {
				out = append(out, &pool[per[c][i]])
			}
		}
	}
	return out
}
