package runtime

import (
	"errors"
	"fmt"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// buildCandidates builds every feasible candidate with the loop's builder
// (none: each runs as proposed): a candidate that does not build, after
// the loop's repairs, is infeasible.
func (r *rlLoop) buildCandidates(groups []*group, all []pos) error {
	l := r.l
	if l.Builder == "" {
		return nil
	}
	return parallel(len(all), r.s.concurrency(l.Builder), func(i int) error {
		gr := groups[all[i].s]
		c := &gr.Cands[all[i].g]
		if c.Infeasible {
			return nil
		}
		p, ok, err := r.s.implement(l.Builder, l.Name, fmt.Sprintf("%s/%d/implement", gr.State, all[i].g), gr.Task, child(gr.Parent, c.Proposal))
		c.Proposal, c.Infeasible = p, !ok
		return err
	})
}

type pos struct{ s, g int }

func all2(states, G int) []pos {
	out := make([]pos, 0, states*G)
	for s := 0; s < states; s++ {
		for g := 0; g < G; g++ {
			out = append(out, pos{s, g})
		}
	}
	return out
}

// predictCandidates scores candidates with the world model.
func (r *rlLoop) predictCandidates(groups []*group, all []pos) error {
	l := r.l
	ro := l.Predictor
	ctx := r.s.records.context()
	return parallel(len(all), r.s.concurrency(ro), func(i int) error {
		gr := groups[all[i].s]
		c := &gr.Cands[all[i].g]
		if c.Infeasible {
			return nil
		}
		var resp payload.PredictResponse
		req := payload.PredictRequest{Task: gr.Task.Name, Env: gr.Task.Env, Records: ctx, Proposal: c.Proposal}
		if err := r.s.complete(ro, fmt.Sprintf("%s/%d/predict", gr.State, all[i].g), req, &resp); errors.Is(err, errCallFailed) {
			c.Infeasible = true // no prediction: the candidate gets the infeasible reward
			return nil
		} else if err != nil {
			return err
		}
		c.Predicted = resp.PredictedGain
		return nil
	})
}

// verifyCandidates runs every candidate for real (verify-all).
func (r *rlLoop) verifyCandidates(groups []*group, all []pos) error {
	l := r.l
	runs := make([]realRun, len(all))
	ok := make([]bool, len(all))
	err := parallel(len(all), r.s.concurrency(l.Builder), func(i int) error {
		gr := groups[all[i].s]
		c := &gr.Cands[all[i].g]
		if c.Infeasible {
			return nil
		}
		key := fmt.Sprintf("%s/%d", gr.State, all[i].g)
		p, feasible, err := r.s.implement(l.Builder, l.Name, key+"/implement", gr.Task, child(gr.Parent, c.Proposal))
		c.Proposal, c.Infeasible = p, !feasible
		runs[i], ok[i] = realRun{Key: key, Task: gr.Task, Proposal: p, lineage: gr.lineage(key), fix: fixerFor(l.Builder, l.Name, key+"/implement", gr.Task)}, feasible
		return err
	})
	if err != nil {
		return err
	}
	if err := r.runInto(groups, all, runs, ok); err != nil {
		return err
	}
	for _, at := range all {
		gr := groups[at.s]
		c := &gr.Cands[at.g]
		c.Improve = c.HasReal && c.RealGain > gr.ParentGain
	}
	return nil
}

// runInto runs the selected candidates and stores their real outcomes.
func (r *rlLoop) runInto(groups []*group, all []pos, runs []realRun, sel []bool) error {
	var todo []realRun
	var at []int
	for i := range runs {
		if sel[i] {
			todo = append(todo, runs[i])
			at = append(at, i)
		}
	}
	out, err := r.s.runReal(r.sc, todo)
	if err != nil {
		return err
	}
	for n, i := range at {
		c := &groups[all[i].s].Cands[all[i].g]
		o := out[n]
		c.Proposal = o.program(c.Proposal) // a repair, when its run was repaired
		switch {
		case o.Skipped || o.Failed:
			c.Skipped = true
		case o.Infeasible:
			c.Infeasible = true
		default:
			c.HasReal, c.RealGain, c.Predicted = true, o.Gain, o.Gain
		}
	}
	return nil
}

// screenCandidates implements, summarizes and critiques each candidate
// (k votes), routes the uncertain ones to real runs when the plan says the
// critic routes, and sets the label score: the real outcome when routed,
// else the critic's verdict.
func (r *rlLoop) screenCandidates(groups []*group, all []pos) error {
	l, c, rt := r.l, r.judge, r.rt
	runs := make([]realRun, len(all))
	verdicts := make([]verdict, len(all))
	feasible := make([]bool, len(all))
	err := parallel(len(all), r.s.concurrency(l.Builder), func(i int) error {
		gr := groups[all[i].s]
		cand := &gr.Cands[all[i].g]
		if cand.Infeasible {
			return nil
		}
		key := fmt.Sprintf("%s/%d", gr.State, all[i].g)
		v, p, ok, err := r.s.screen(l, key, gr.Task, gr.Parent, child(gr.Parent, cand.Proposal), c, rt)
		if err != nil {
			return err
		}
		cand.Proposal, cand.Infeasible, feasible[i] = p, !ok, ok
		verdicts[i] = v
		runs[i] = realRun{Key: key, Task: gr.Task, Proposal: p, lineage: gr.lineage(key), fix: fixerFor(l.Builder, l.Name, key+"/implement", gr.Task).summarizing(l.Summarizer)}
		return nil
	})
	if err != nil {
		return err
	}
	sel := make([]bool, len(all))
	judged, routed := 0, 0
	for i := range all {
		sel[i] = l.Routes && feasible[i] && verdicts[i].Routed
		if feasible[i] {
			judged++
			if sel[i] {
				routed++
			}
		}
	}
	aud, weight := r.audit(runs, feasible, sel)
	r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Judged += judged; m.Routed += routed })
	if err := r.runInto(groups, all, runs, orEach(sel, aud)); err != nil {
		return err
	}
	for i := range all {
		gr := groups[all[i].s]
		cand := &gr.Cands[all[i].g]
		if !feasible[i] {
			continue
		}
		if aud[i] && cand.Skipped {
			// An audit the budget could not make: the verdict stands.
			cand.Skipped = false
		}
		cand.Routed = sel[i] && !cand.Skipped
		if cand.Skipped {
			// Routed because the verdict is uncertain, and the budget could
			// not verify it: no reward comes from the uncertain verdict.
			continue
		}
		better := improving(c.Labels, verdicts[i].Label)
		if cand.HasReal {
			improved := cand.RealGain > gr.ParentGain
			p := critPoint{score: verdicts[i].ImproveShare, improved: improved, errored: better != improved, routed: verdicts[i].Routed}
			if aud[i] {
				p.audited, p.weight = true, weight
			}
			r.s.measured.critic(l.Name, p)
			better = improved
		}
		cand.Improve = better
		cand.LabelScore = -1
		if better {
			cand.LabelScore = 1
		}
	}
	return nil
}

// screen runs one candidate through implement, summarize and k critic
// votes and returns the routed verdict.
func (r *service) screen(l *plan.Loop, key string, t *taskInfo, parent, child plugins.Proposal, c *plan.Critic, rt *router) (verdict, plugins.Proposal, bool, error) {
	p, ok, err := r.implement(l.Builder, l.Name, key+"/implement", t, child)
	if err != nil || !ok {
		return verdict{}, p, false, err
	}
	var summary string
	if l.Summarizer != "" {
		var resp payload.SummarizeResponse
		if err := r.complete(l.Summarizer, key+"/summarize", payload.SummarizeRequest{Task: t.Name, Proposal: p}, &resp); err != nil && !errors.Is(err, errCallFailed) {
			return verdict{}, p, false, err
		}
		summary = resp.Summary
	}
	ro := c.Role
	k := c.Votes
	votes := make([]string, 0, k)
	// The verdict pattern, if any, is the role's (withAnswer).
	cr := payload.CritiqueRequest{Task: t.Name, Env: t.Env, Parent: parent, Child: p, Summary: summary, Labels: c.Labels}
	// Boxed once for the k votes, not once per vote.
	var req any = cr
	for v := 0; v < k; v++ {
		var resp payload.CritiqueResponse
		err := r.complete(ro, fmt.Sprintf("%s/critic/%d", key, v), req, &resp)
		switch {
		case errors.Is(err, errUnparsed):
			// An answer that could not be read is no vote: it is counted
			// (MeasuredRole.Unparsed), not read as the worst label. The
			// verdict stands on the votes that were read; none read is
			// full uncertainty, which routes.
			continue
		case err != nil && !errors.Is(err, errCallFailed):
			return verdict{}, p, false, err
		}
		// A failed vote is an unknown label, which counts as the worst.
		votes = append(votes, resp.Label)
	}
	vd := aggregate(c, votes)
	if err := rt.route(&vd, k); err != nil {
		return vd, p, false, err
	}
	return vd, p, true, nil
}

// lineage ties candidate key's real run to the group's parent.
func (gr *group) lineage(key string) *journal.Lineage {
	return &journal.Lineage{Candidate: key, Parent: clone(gr.Parent), ParentCandidate: gr.parentCand, ParentUnmeasured: gr.parentUnmeasured}
}
