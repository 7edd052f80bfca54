package runtime

import (
	"fmt"
	"maps"
	"sort"

	"assay/compiler/plan"
	"assay/plugins"
	"assay/runtime/journal"
)

// island is one population of an evolution loop: its current parent and
// the parent's real gain.
type island struct {
	Parent plugins.Proposal `json:"parent"`
	Gain   float64          `json:"gain"`
}

// RoundFigures are an evolution round's figures for one task.
type RoundFigures struct {
	Loop     string    `json:"loop"`
	Task     string    `json:"task"`
	Round    int       `json:"round"`
	Gains    []float64 `json:"island_gains"`
	Best     float64   `json:"best_gain"`
	Verified int       `json:"verified"`
	Routed   int       `json:"routed"`
	Replaced int       `json:"replaced"`
	Migrated bool      `json:"migrated,omitempty"`
	RealRuns int       `json:"real_runs"`
	USD      float64   `json:"usd"`
}

// evolutionPhase runs an evolution loop on every task of its split:
// islands evolve in rounds; per island-round the proposer makes ideas, each
// is implemented, summarized and judged by k critic votes; the best-ranked
// ideas are verified by real runs, and a parent is replaced only by a child
// whose real gain is higher. Every migration_every rounds the best parent
// is copied to the islands whose parent is worse.
func (r *runner) evolutionPhase(ph *plan.Phase) error {
	l := r.loops[ph.Loop]
	if l == nil {
		return fmt.Errorf("%w: the plan has no loop %q", errPermanent, ph.Loop)
	}
	// The critic the plan binds ranks the ideas; without one (the papers'
	// "None" setting) ideas are verified by the select rule alone.
	c, rt, err := r.judgeOf(l)
	if err != nil {
		return err
	}
	return (&evolution{runner: r, l: l, c: c, rt: rt}).run(ph)
}

// evolution is one evolution loop's phase: the loop and the critic that
// ranks its ideas, as the plan binds them, over the runner's shared
// service.
type evolution struct {
	*runner
	l  *plan.Loop
	c  *plan.Critic // nil: ideas are verified by the select rule alone
	rt *router
}

func (r *evolution) run(ph *plan.Phase) error {
	l := r.l
	tasks := r.tasksOf("", l.Split)
	I, R := l.Islands, l.Rounds
	r.progress.start(ph.Name, len(tasks)*R, "rounds")
	for _, t := range tasks {
		isl := make([]island, I)
		for i := range isl {
			isl[i] = island{Parent: plugins.Proposal{ID: "base", Text: "the task's reference configuration"}}
		}
		for round := 0; round < R; round++ {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			fig := RoundFigures{Loop: l.Name, Task: t.Env + "/" + t.Name, Round: round + 1}
			for i := range isl {
				if err := r.islandRound(t, i, round, &isl[i], &fig); err != nil {
					return err
				}
			}
			if m := l.MigrationEvery; m > 0 && (round+1)%m == 0 && round+1 < R {
				best := 0
				for i := range isl {
					if isl[i].Gain > isl[best].Gain {
						best = i
					}
				}
				for i := range isl {
					if isl[i].Gain < isl[best].Gain {
						isl[i] = island{Parent: clone(isl[best].Parent), Gain: isl[best].Gain}
					}
				}
				fig.Migrated = true
			}
			for _, is := range isl {
				fig.Gains = append(fig.Gains, is.Gain)
				fig.Best = max(fig.Best, is.Gain)
			}
			s := r.budget.Spent()
			fig.RealRuns, fig.USD = s.RealRuns, round6(s.USD)
			// A step of an evolution loop is a round, as the plan counts
			// it: round k is done once every task has run it.
			if round+1 > r.steps {
				r.steps = round + 1
			}
			r.measured.loop(l.Name, func(m *MeasuredLoop) { m.Steps = max(m.Steps, round+1) })
			if err := r.j.Append(journal.KindStep, fmt.Sprintf("%s/%s/%d", l.Name, fig.Task, round+1), fig); err != nil {
				return err
			}
			if err := r.j.Flush(); err != nil {
				return err
			}
			r.progress.step(fmt.Sprintf("%s round %d best gain %.4g", fig.Task, round+1, fig.Best))
		}
	}
	return nil
}

func clone(p plugins.Proposal) plugins.Proposal {
	p.Edits = maps.Clone(p.Edits)
	return p
}

// merge applies an idea's edits on top of its parent's.
func merge(parent, idea plugins.Proposal) plugins.Proposal {
	out := idea
	out.Edits = maps.Clone(parent.Edits)
	if out.Edits == nil {
		out.Edits = map[string]string{}
	}
	maps.Copy(out.Edits, idea.Edits)
	return out
}

func (r *evolution) islandRound(t *taskInfo, i, round int, is *island, fig *RoundFigures) error {
	l, c, rt := r.l, r.c, r.rt
	n := l.Ideas
	type idea struct {
		p        plugins.Proposal
		v        verdict
		feasible bool
	}
	ideas := make([]idea, n)
	base := fmt.Sprintf("%s/%s/%s/i%d/r%d", l.Name, t.Env, t.Name, i, round)
	parent := is.Parent
	err := parallel(n, r.concurrency(l.Proposer), func(k int) error {
		key := fmt.Sprintf("%s/%d", base, k)
		p, _, ok, err := r.propose(l.Proposer, key+"/propose", t, base, &parent)
		r.measured.loop(l.Name, func(m *MeasuredLoop) { m.Candidates++ })
		if err != nil || !ok {
			return err
		}
		if c == nil {
			child, ok, err := r.implement(l.Builder, l.Name, key+"/implement", t, merge(parent, p))
			ideas[k] = idea{child, verdict{}, ok}
			return err
		}
		v, child, ok, err := r.screen(l, key, t, parent, merge(parent, p), c, rt)
		ideas[k] = idea{child, v, ok}
		return err
	})
	if err != nil {
		return err
	}
	order := make([]int, 0, n)
	for k := range ideas {
		if ideas[k].feasible {
			order = append(order, k)
			if ideas[k].v.Routed {
				fig.Routed++
			}
		}
	}
	switch l.Select {
	case "random":
		g := rng(r.v.Seed, base+"/select")
		g.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
	case "majority":
		sort.SliceStable(order, func(a, b int) bool {
			va, vb := ideas[order[a]].v, ideas[order[b]].v
			ia, ib := improving(c.Labels, va.Label), improving(c.Labels, vb.Label)
			if ia != ib {
				return ia
			}
			return va.Uncertainty < vb.Uncertainty
		})
	default: // best_mean_rank
		sort.SliceStable(order, func(a, b int) bool { return ideas[order[a]].v.MeanRank < ideas[order[b]].v.MeanRank })
	}
	V := l.Verifications
	if len(order) > V {
		order = order[:V]
	}
	runs := make([]realRun, len(order))
	for n, k := range order {
		runs[n] = realRun{Key: fmt.Sprintf("%s/%d", base, k), Task: t, Proposal: ideas[k].p}
	}
	out, err := r.runReal(runs)
	if err != nil {
		return err
	}
	for n, o := range out {
		if o.Skipped || o.Failed || o.Infeasible {
			continue
		}
		fig.Verified++
		if c != nil {
			// The critic judged the idea against this island's parent.
			v := ideas[order[n]].v
			better := o.Gain > is.Gain
			r.measured.critic(l.Name, critPoint{score: v.ImproveShare, improved: better, errored: improving(c.Labels, v.Label) != better, routed: v.Routed})
		}
		if o.Gain > is.Gain {
			*is = island{Parent: runs[n].Proposal, Gain: o.Gain}
			fig.Replaced++
		}
	}
	return nil
}
