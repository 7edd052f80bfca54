package compiler

import (
	"slices"
	"strings"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// criticBalance checks a grpo block's balance: labels of one space (the
// 3-way labels, or the 5-way ones of a 5-way critic), each once, at least
// two, and no more than a step's pairs, so every step draws each class.
// Whether the pool holds a pair of each class is known only when the file
// is read: validate checks it when the file exists, the run before its
// first phase.
func (k *checker) criticBalance(ct *spec.CriticTraining, g *spec.CriticGRPO, name string) {
	b := g.Balance
	if !b.Set {
		return
	}
	five := false
	if cr := k.x.critics[ct.Critic.Name]; cr != nil {
		five = cr.Labels.V == critic.Space5
	}
	if _, ok := balanceSpace(b.V, five); !ok {
		want := `"improve", "tie" and "lose" (the pair's label3)`
		if five {
			want += `, or of "BigWin", "MediumWin", "SmallWin", "Tie" and "Lose" (label5)`
		}
		k.add(diag.Errorf(CodeEnum, b.Range, "%s: grpo.balance %s: each class must be a label of one space", name, quoteList(b.V)).
			WithDetail("write labels of %s, e.g. balance = [\"improve\", \"tie\", \"lose\"]", want))
		return
	}
	for i, c := range b.V {
		if slices.Index(b.V, c) != i {
			k.add(diag.Errorf(CodeRange, b.Range, "%s: grpo.balance names %q twice", name, c).
				WithDetail("name each class once"))
			return
		}
	}
	if len(b.V) < 2 {
		k.add(diag.Errorf(CodeRange, b.Range, "%s: grpo.balance has %d class, and balancing needs at least 2", name, len(b.V)).
			WithDetail("name every class the pool should draw equally, e.g. balance = [\"improve\", \"tie\", \"lose\"], or remove balance"))
		return
	}
	if g.Batch.Set && g.Batch.V >= 1 && g.Batch.V < len(b.V) {
		k.add(diag.Errorf(CodeRange, g.Batch.Range, "%s: grpo.pairs_per_step %d is fewer than the %d classes of balance, so a step cannot draw each", name, g.Batch.V, len(b.V)).
			WithDetail("set pairs_per_step to at least %d (a multiple of %d draws the classes equally every step)", len(b.V), len(b.V)))
	}
}

// balanceSpace is the label space of classes: 3way when every class is a
// 3-way label, 5way when each is a 5-way one and the critic is 5-way.
func balanceSpace(classes []string, five bool) (string, bool) {
	in := func(space string) bool {
		for _, c := range classes {
			if critic.Rank(space, c) < 0 {
				return false
			}
		}
		return len(classes) > 0
	}
	switch {
	case in(critic.Space3):
		return critic.Space3, true
	case five && in(critic.Space5):
		return critic.Space5, true
	}
	return "", false
}

// lowerCriticBalance is a grpo block's balance in the plan (nil: none).
func lowerCriticBalance(g *spec.CriticGRPO, labels string) *plan.CriticBalance {
	if !g.Balance.Set {
		return nil
	}
	space, _ := balanceSpace(g.Balance.V, labels == critic.Space5)
	return &plan.CriticBalance{Space: space, Classes: slices.Clone(g.Balance.V)}
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = `"` + x + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}
