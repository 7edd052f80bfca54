package runtime

import (
	"fmt"

	"github.com/assay-lang/assay/runtime/journal"
)

// children is the second stage of the critics paper's two-stage pair
// collection (its appendix C.2): once a task's rounds are done, each
// program its islands verified (the solution each step produced) is a
// parent of ChildrenPerParent children, each proposed against it, built
// and run for real. They are pairs for a critic (their lineage names the
// parent's run), not moves of the search: no island takes them, and no
// critic screens them. A program that migrated is the parent of one set
// of children, the one of the island that verified it.
func (r *evolution) children(t *taskInfo, isl []island) error {
	l := r.l
	if l.ChildrenPerParent < 1 {
		return nil
	}
	seen := map[string]bool{}
	for _, is := range isl {
		for _, p := range is.Progs {
			if p.cand == "" || seen[p.cand] {
				continue
			}
			seen[p.cand] = true
			if err := r.s.ctx.Err(); err != nil {
				return err
			}
			if err := r.childrenOf(t, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// childrenOf proposes, builds and runs the children of parent p, each
// run keyed under p's candidate key.
func (r *evolution) childrenOf(t *taskInfo, p program) error {
	l := r.l
	n := l.ChildrenPerParent
	parent := p.P
	state := p.cand + "/children"
	kids := make([]*realRun, n)
	err := parallel(n, r.s.concurrency(l.Proposer), func(k int) error {
		key := fmt.Sprintf("%s/%d", state, k)
		idea, _, ok, err := r.s.proposeWith(l.Proposer, key+"/propose", t, state, &parent, proposeOpts{})
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Candidates++ })
		if err != nil || !ok {
			return err
		}
		child, ok, err := r.s.implement(l.Builder, l.Name, key+"/implement", t, merge(parent, idea))
		if err != nil || !ok {
			return err
		}
		kids[k] = &realRun{Key: key, Task: t, Proposal: child, fix: fixerFor(l.Builder, l.Name, key+"/implement", t),
			lineage: &journal.Lineage{Candidate: key, Parent: clone(parent), ParentCandidate: p.cand}}
		return nil
	})
	if err != nil {
		return err
	}
	var runs []realRun
	for _, k := range kids {
		if k != nil {
			runs = append(runs, *k)
		}
	}
	out, err := r.s.runReal(r.sc, runs)
	if err != nil {
		return err
	}
	verified := 0
	for _, o := range out {
		if !o.Skipped && !o.Failed && !o.Infeasible {
			verified++
		}
	}
	r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.ChildParents++; m.ChildrenVerified += verified })
	r.s.progress.logf("%s: %s/%s: %d of %d children of %s verified", l.Name, t.Env, t.Name, verified, n, p.cand)
	return nil
}
