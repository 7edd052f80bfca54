package runtime

import (
	"fmt"
	"math"
	"sort"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime/journal"
)

// calibrate runs one calibration round: the top-rated (or random) proposals
// of the current rollout are run for real and join the world model's
// context; the error of its predictions on them is recorded first.
func (r *rlLoop) calibrate(sc scope, round int, cr *plan.CalibrationRound) error {
	c := r.body.Calibration
	budget, sel := cr.Runs, c.Select
	type pick struct {
		gr *group
		c  *candidate
		i  int
		g  int // the candidate's place in its group
	}
	// The current policy's rollout first; when it has fewer distinct
	// proposals left than the round's budget, the loop's earlier rollouts,
	// newest first, fill it, so a round runs what the plan counted.
	var cands []pick
	for ro := len(r.rollouts) - 1; ro >= 0; ro-- {
		var these []pick
		for _, gr := range r.rollouts[ro] {
			for i := range gr.Cands {
				c := &gr.Cands[i]
				k := gr.TaskKey + "|" + proposalKey(c.Proposal)
				if c.Infeasible || c.Repeat || c.Skipped || c.HasReal || r.calibrated[k] {
					continue
				}
				these = append(these, pick{gr, c, len(cands) + len(these), i})
			}
		}
		if sel == "random" {
			g := rng(r.s.v.Seed, fmt.Sprintf("calibration/%d/%d", round, ro))
			g.Shuffle(len(these), func(a, b int) { these[a], these[b] = these[b], these[a] })
		} else {
			sort.SliceStable(these, func(a, b int) bool { return these[a].c.Reward > these[b].c.Reward })
		}
		cands = append(cands, these...)
	}
	// One run per distinct (task, proposal), and from each environment at
	// most the round's share of the plan (cr.Proposals), so the runs per
	// environment are those the plan counts.
	var chosen []pick
	taken := map[string]int{}
	for _, p := range cands {
		if len(chosen) >= budget {
			break
		}
		k := p.gr.TaskKey + "|" + proposalKey(p.c.Proposal)
		if r.calibrated[k] {
			continue
		}
		if cr.Proposals != nil {
			env := p.gr.Task.Env
			if taken[env] >= cr.Proposals[env] {
				continue
			}
			taken[env]++
		}
		r.calibrated[k] = true
		chosen = append(chosen, p)
	}
	r.s.progress.logf("calibration round %d after step %d: %d real runs", round+1, cr.AfterStep, len(chosen))
	// The picks were built in their rollout (the builder decided they are
	// feasible), so they run as built; a candidate that did not build was
	// never a pick, and the next top-rated one took its place.
	todo := make([]realRun, len(chosen))
	at := make([]int, len(chosen))
	for i, p := range chosen {
		todo[i] = realRun{Key: fmt.Sprintf("calibration/%d/%d", round, i), Task: p.gr.Task, Proposal: p.c.Proposal,
			fix: fixerFor(r.l.Builder, r.l.Name, fmt.Sprintf("%s/%d/implement", p.gr.State, p.g), p.gr.Task)}
		at[i] = i
	}
	runs := todo
	out, err := r.s.runReal(sc, todo)
	if err != nil {
		return err
	}
	fig := CalibrationFigures{Round: round + 1, AfterStep: cr.AfterStep}
	var recs []record
	for n, i := range at {
		o := out[n]
		if o.Skipped || o.Failed {
			continue
		}
		fig.Runs++
		p := chosen[i]
		rec := record{Task: p.gr.Task.Name, Env: p.gr.Task.Env, Proposal: o.program(runs[i].Proposal), Gain: o.Gain, Infeasible: o.Infeasible}
		recs = append(recs, rec)
		if !o.Infeasible {
			pr, rr := calibratedGain(c, p.c.Predicted, *p.gr.Task), calibratedGain(c, o.Gain, *p.gr.Task)
			fig.Points = append(fig.Points, CalibPoint{Task: p.gr.TaskKey, State: p.gr.State, Proposal: proposalKey(p.c.Proposal), Predicted: p.c.Predicted, Real: o.Gain, PredictedReward: pr, RealReward: rr})
		}
	}
	fig.MAE, fig.RankAcc, fig.Pairs = calibrationError(fig.Points)
	fig.StateRankAcc, fig.StatePairs, fig.AdvCosine, fig.StateGroups = withinState(fig.Points)
	for _, p := range fig.Points {
		fig.RewardGap += math.Abs(p.PredictedReward-p.RealReward) / float64(len(fig.Points))
	}
	r.s.records.add(true, recs...)
	fig.Records = r.s.records.count()
	if err := r.s.j.Append(journal.KindCalibration, fmt.Sprintf("%d", round+1), fig); err != nil {
		return err
	}
	return r.s.j.Flush()
}

// calibratedGain is a gain as a calibration round compares it: the one
// place the runtime applies the plan's calibration normalisation and clip.
func calibratedGain(c *plan.Calibration, gain float64, t taskInfo) float64 {
	scale := t.Scale
	if c.Normalize == "none" || scale == 0 {
		scale = 1
	}
	x := gain / scale
	if clip := c.Clip; clip > 0 {
		x = math.Max(-clip, math.Min(clip, x))
	}
	return x
}

// calibrationError returns the mean absolute error of predicted against
// real gain, and the pairwise ranking accuracy over pairs of points on the
// same task (the share of pairs the predictions order as the real gains
// do; ties in either are skipped).
func calibrationError(pts []CalibPoint) (mae, acc float64, pairs int) {
	if len(pts) == 0 {
		return 0, 0, 0
	}
	for _, p := range pts {
		mae += math.Abs(p.Predicted - p.Real)
	}
	mae /= float64(len(pts))
	var right int
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			if pts[i].Task != pts[j].Task {
				continue
			}
			dp, dr := pts[i].Predicted-pts[j].Predicted, pts[i].Real-pts[j].Real
			if dp == 0 || dr == 0 {
				continue
			}
			pairs++
			if (dp > 0) == (dr > 0) {
				right++
			}
		}
	}
	if pairs > 0 {
		acc = float64(right) / float64(pairs)
	}
	return mae, acc, pairs
}

// withinState is the world model's within-state figures on calibration
// points, in reward units: pairwise rank accuracy and the cosine of
// group-relative advantages among points of one rollout state.
func withinState(pts []CalibPoint) (acc float64, pairs int, cos float64, groups int) {
	by := map[string][][2]float64{}
	var order []string
	for _, p := range pts {
		if _, ok := by[p.State]; !ok {
			order = append(order, p.State)
		}
		by[p.State] = append(by[p.State], [2]float64{p.PredictedReward, p.RealReward})
	}
	gs := make([][][2]float64, len(order))
	for i, st := range order {
		gs[i] = by[st]
	}
	return groupStats(gs)
}

// runnableBodies refuses a phase without the one body of its kind, an
// evaluation without proposals to make, and calibration rounds a loop
// would not run as the plan says: without a normalize, or not in the
// order of their steps.
func runnableBodies(v *plan.Variant, bad refusal) error {
	for _, ph := range v.Phases {
		if !ph.HasBody() {
			return bad(ph.Source, "phase %s of kind %s has %d bodies, and needs the one of its kind", ph.Name, ph.Kind, ph.Bodies())
		}
		if e := ph.Evaluation; e != nil && (e.K < 1 || e.States < 1) {
			return bad(ph.Source, "evaluation has k %d and states %d", e.K, e.States)
		}
		c := (*plan.Calibration)(nil)
		if ph.RL != nil {
			c = ph.RL.Calibration
		}
		if c == nil {
			continue
		}
		if c.Normalize == "" {
			return bad(ph.Source, "the calibration of phase %s has no normalize", ph.Name)
		}
		for i, r := range c.Rounds {
			if r.AfterStep < 1 || i > 0 && r.AfterStep <= c.Rounds[i-1].AfterStep {
				return bad(r.Source, "calibration round %s of phase %s comes after step %d, not after the round before it", r.Name, ph.Name, r.AfterStep)
			}
		}
	}
	return nil
}
