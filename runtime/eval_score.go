package runtime

import (
	"fmt"
	"math"

	"github.com/assay-lang/assay/compiler/plan"
)

// score is the evaluation's figures from the items' gains: per arm, task
// and family, the fewest proposals a state measured, Beats-Base and the
// world model's ranking.
func (r *evaluation) score(gains map[*evalItem]float64, real map[*evalItem]bool) EvalFigures {
	e := r.e
	fig := EvalFigures{AvgAt: e.AvgAt, BestAt: e.BestAt, States: r.states, Normalize: e.Normalize}
	// The fewest proposals a state measured, for Avg and for Best.
	got := stateCount{avg: e.AvgAt, best: e.BestAt}
	// stateAvg[arm][task*states+s] is the state's Avg@k, for Beats-Base.
	stateAvg := make([][]float64, len(e.Arms))
	stateOK := make([][]bool, len(e.Arms))
	for a := range e.Arms {
		stateAvg[a] = make([]float64, len(r.tasks)*r.states)
		stateOK[a] = make([]bool, len(r.tasks)*r.states)
		fig.Arms = append(fig.Arms, r.armFigures(a, gains, &got, stateAvg[a], stateOK[a]))
	}
	if got.avg < e.AvgAt {
		fig.AvgGot = &got.avg
	}
	if got.best < e.BestAt {
		fig.BestGot = &got.best
	}
	for _, af := range fig.Arms {
		r.s.progress.step(fmt.Sprintf("%s %s %.4g %s %.4g", af.Arm, fig.AvgLabel(), af.Avg, fig.BestLabel(), af.Best))
	}
	pol := fig.Arms[0]
	fig.Avg, fig.Best, fig.Negative, fig.Tasks = pol.Avg, pol.Best, pol.Negative, pol.Tasks
	for a, arm := range e.Arms {
		if arm.Name == plan.ArmBase {
			fig.BeatsBase = beatsBase(stateAvg[0], stateOK[0], stateAvg[a], stateOK[a])
		}
	}
	if e.Predictor != "" {
		fig.RWM = rwmFigures(e.Predictor, len(r.ctx), r.items, gains, real, func(it *evalItem) float64 { return r.evalNorm(it.predicted, it.t) })
	}
	return fig
}

// stateCount is the fewest proposals a state measured, for Avg and Best.
type stateCount struct{ avg, best int }

// armFigures are arm a's figures per task and family; it fills the arm's
// per-state Avg@k (and whether the state measured anything) for
// Beats-Base, and lowers got to the fewest proposals a state measured.
func (r *evaluation) armFigures(a int, gains map[*evalItem]float64, got *stateCount, stateAvg []float64, stateOK []bool) ArmFigures {
	arm := r.e.Arms[a]
	af := ArmFigures{Arm: arm.Name, Proposer: arm.Proposer, Records: len(r.records[a])}
	fams := map[string]*famAcc{}
	var famOrder []string
	var all famAcc
	for ti, t := range r.tasks {
		fam := r.s.envs[t.Env].Family
		tf := TaskEvalFigs{Task: t.Env + "/" + t.Name, Family: fam}
		var tAvg, tBest float64
		var tStates int
		for s := 0; s < r.states; s++ {
			st := r.stateFigures(r.items[((a*len(r.tasks)+ti)*r.states+s)*r.k:][:r.k], gains, &tf)
			got.avg, got.best = min(got.avg, st.cnt), min(got.best, st.bestCnt)
			if st.valid == 0 {
				continue // every run of the state skipped or failed
			}
			stateAvg[ti*r.states+s], stateOK[ti*r.states+s] = st.avg, true
			tAvg += st.avg
			tBest += st.best
			tStates++
			f := fams[fam]
			if f == nil {
				f = &famAcc{}
				fams[fam] = f
				famOrder = append(famOrder, fam)
			}
			f.add(st.avg, st.best, st.neg, st.valid)
			all.add(st.avg, st.best, st.neg, st.valid)
		}
		if tStates > 0 {
			tf.Avg, tf.Best = round6(tAvg/float64(tStates)), round6(tBest/float64(tStates))
		}
		af.Tasks = append(af.Tasks, tf)
	}
	af.States, af.Avg, af.Best, af.Negative = all.figures()
	for _, name := range famOrder {
		ff := FamilyFigures{Family: name}
		ff.States, ff.Avg, ff.Best, ff.Negative = fams[name].figures()
		af.Families = append(af.Families, ff)
	}
	return af
}

// stateFig is one state's Avg@k and Best@k over its proposals that
// measured a gain.
type stateFig struct {
	avg, best                float64
	cnt, bestCnt, neg, valid int
}

// stateFigures scores one state's k items, appending their gains to tf.
func (r *evaluation) stateFigures(items []*evalItem, gains map[*evalItem]float64, tf *TaskEvalFigs) stateFig {
	var st stateFig
	var sum float64
	best := math.Inf(-1)
	for _, it := range items {
		g, ok := gains[it]
		if !ok {
			continue
		}
		tf.Gains = append(tf.Gains, round6(g))
		st.valid++
		if g < 0 {
			st.neg++
		}
		if it.i < r.e.AvgAt {
			sum += g
			st.cnt++
		}
		if it.i < r.e.BestAt {
			best = max(best, g)
			st.bestCnt++
		}
	}
	if st.cnt > 0 {
		st.avg = sum / float64(st.cnt)
	}
	if math.IsInf(best, -1) {
		best = 0
	}
	st.best = best
	return st
}

// beatsBase is the share of the states both arms measured where the
// policy's Avg@k beats the Base arm's.
func beatsBase(polAvg []float64, polOK []bool, baseAvg []float64, baseOK []bool) *float64 {
	var beats, n int
	for i := range polAvg {
		if polOK[i] && baseOK[i] {
			n++
			if polAvg[i] > baseAvg[i] {
				beats++
			}
		}
	}
	share := 0.0
	if n > 0 {
		share = round6(float64(beats) / float64(n))
	}
	return &share
}
