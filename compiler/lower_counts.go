package compiler

import (
	"math"
	"sort"

	"github.com/assay-lang/assay/compiler/plan"
)

// Scenarios of the estimate's assumptions: a critic's low, expected and
// high share of candidates routed to real runs, crossed with a builder's
// low, expected and high share of builds that succeed. Scenario sc takes
// routed level sc/3 and build level sc%3. Every count is computed once per
// scenario; a plan.Count takes the minimum, the expected scenario and the
// maximum, so a bound holds at every corner of the assumptions' ranges.
const (
	scExpected = 4
	scHigh     = 8 // most routed, most builds succeed
	nScenarios = 9
)

type vec [nScenarios]float64

func (v vec) count() plan.Count {
	lo, hi := v[0], v[0]
	for _, x := range v[1:] {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return plan.Count{Low: lo, Expected: v[scExpected], High: hi}
}

// rawPhase is a phase's counts, per scenario.
type rawPhase struct {
	ph *plan.Phase
	// round, for a calibration round, is where its counts go (ph is then
	// only the round's name and counts).
	round *plan.CalibrationRound
	runs  map[string]*vec
	llm   map[string]*vec
	// llmHigh is, per role, what its calls can reach at most where that is
	// more than the scenarios give: builder repairs, which no assumption
	// prices (a build that succeeds may have needed them).
	llmHigh map[string]*vec
	// runsLo and runsHi bound a phase's real runs per environment where
	// they are wider than the scenarios (see addRunBounds).
	runsLo, runsHi map[string]*vec
	cand           vec
	steps          vec
	refreshes      vec
	// untilBudget marks the phase of a loop that runs until the budget is
	// spent: its figures are bounded by its refresh count's range times the
	// range of a refresh's figures (see count).
	untilBudget bool
	// unbounded, when set, says why nothing bounds the phase's figures
	// that grow with its steps (see count).
	unbounded string
	// runRepairs, for a phase whose candidates a builder builds, is the
	// most repairs a run on each environment can get (lower_repairs.go);
	// repairRuns the real runs of its high that repairs add.
	runRepairs map[string]int
	repairRuns float64
}

// count turns a phase figure into a Count. For an until_budget loop the
// runtime stops at the high step count and spends the budget, whatever the
// routed and build shares turn out to be, so a figure lies between the
// fewest refreshes times the least a refresh makes and the most refreshes
// times the most a refresh makes; the scenarios alone would not bound a mix
// of them (many steps because few candidates are routed, and many critic
// calls because every build succeeds).
func (r *rawPhase) count(v vec) plan.Count {
	c := v.count()
	if !r.untilBudget {
		return c
	}
	if r.unbounded != "" && r.maxPerRefresh(v) > 0 {
		return plan.Unbounded(c.Low, c.Expected, r.unbounded)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for sc := range v {
		if r.refreshes[sc] > 0 {
			per := v[sc] / r.refreshes[sc]
			lo, hi = math.Min(lo, per), math.Max(hi, per)
		}
	}
	rc := r.refreshes.count()
	if math.IsInf(lo, 1) {
		return c
	}
	return plan.Count{Low: math.Min(c.Low, rc.Low*lo), Expected: c.Expected, High: math.Max(c.High, rc.High*hi)}
}

func (r *rawPhase) addRuns(env string, sc int, n float64) {
	if n == 0 {
		return
	}
	if r.runs[env] == nil {
		r.runs[env] = &vec{}
	}
	r.runs[env][sc] += n
}

func (r *rawPhase) addLLM(role string, sc int, n float64) {
	if n == 0 {
		return
	}
	if r.llm[role] == nil {
		r.llm[role] = &vec{}
	}
	r.llm[role][sc] += n
}

// addBuilds counts the builder calls of n candidate builds in scenario
// sc, where a share ok of the builds succeeds in the end and each build
// that fails gets up to repairs repairs: a build that fails for good made
// 1 + repairs calls, one that succeeds at least one and at most as many.
// The scenario counts the fewest (at the fewest repairs a task gets);
// llmHigh the most (at the most).
func (r *rawPhase) addBuilds(role string, sc int, n, ok float64, rr repairRange) {
	r.addLLM(role, sc, n*(1+float64(rr.lo)*(1-ok)))
	repairs := rr.hi
	if repairs == 0 || n == 0 {
		return
	}
	if r.llmHigh == nil {
		r.llmHigh = map[string]*vec{}
	}
	if r.llmHigh[role] == nil {
		r.llmHigh[role] = &vec{}
	}
	r.llmHigh[role][sc] += n * float64(1+repairs)
}

// addRunBounds records what a phase's real runs on env can reach at least
// and at most in scenario sc, where that is wider than the scenario's own
// figure (an evolution round's routed ideas vary from round to round).
func (r *rawPhase) addRunBounds(env string, sc int, lo, hi float64) {
	if r.runsLo == nil {
		r.runsLo, r.runsHi = map[string]*vec{}, map[string]*vec{}
	}
	if r.runsLo[env] == nil {
		r.runsLo[env], r.runsHi[env] = &vec{}, &vec{}
	}
	r.runsLo[env][sc] += lo
	r.runsHi[env][sc] += hi
}

func (r *rawPhase) totalRuns(sc int) float64 {
	t := 0.0
	for _, v := range r.runs {
		t += v[sc]
	}
	return t
}

// levels spreads three levels (low, expected, high) over the scenarios of
// one assumption: routed (sc/3) or built (sc%3).
func levels(lo, e, hi float64, routedAxis bool) vec {
	var v vec
	l := [3]float64{lo, e, hi}
	for sc := range v {
		if routedAxis {
			v[sc] = l[sc/3]
		} else {
			v[sc] = l[sc%3]
		}
	}
	return v
}

// maxPerRefresh is the most one refresh adds to a figure, over scenarios.
func (r *rawPhase) maxPerRefresh(v vec) float64 {
	hi := 0.0
	for sc := range v {
		if r.refreshes[sc] > 0 {
			hi = math.Max(hi, v[sc]/r.refreshes[sc])
		}
	}
	return hi
}

// othersLow is the fewest real runs every phase but r makes.
func othersLow(raws []*rawPhase, r *rawPhase) float64 {
	t := 0.0
	for _, o := range raws {
		if o == r {
			continue
		}
		for _, v := range o.runs {
			t += o.count(*v).Low
		}
	}
	return t
}

// splitWeights returns, per environment in order, its task count of split.
func (lv *lowering) splitWeights(split string) ([]string, []int) {
	var names []string
	var w []int
	for _, e := range lv.s.Environments {
		names = append(names, e.Name)
		w = append(w, envTaskCount(e, split))
	}
	return names, w
}

// spread splits total over weights by largest remainder, ties going to the
// earlier entry.
func spread(total int, weights []int) []int {
	out := make([]int, len(weights))
	sum := 0
	for _, w := range weights {
		sum += w
	}
	if sum == 0 || total <= 0 {
		return out
	}
	type rem struct {
		i int
		r int64
	}
	rems := make([]rem, len(weights))
	given := 0
	for i, w := range weights {
		q := total * w
		out[i] = q / sum
		given += out[i]
		rems[i] = rem{i, int64(q % sum)}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; k < total-given; k++ {
		out[rems[k].i]++
	}
	return out
}

// spreadRuns spreads real runs over the environments by their tasks of
// split: whole runs by largest remainder when the total is whole, else in
// proportion.
func (lv *lowering) spreadRuns(r *rawPhase, sc int, total float64, split string) {
	names, w := lv.splitWeights(split)
	if total == math.Trunc(total) {
		for i, n := range spread(int(total), w) {
			r.addRuns(names[i], sc, float64(n))
		}
		return
	}
	lv.spreadFloat(r, sc, total, names, w)
}

// spreadFloat spreads total over names in proportion to their weights w.
func (lv *lowering) spreadFloat(r *rawPhase, sc int, total float64, names []string, w []int) {
	tot := 0
	for _, n := range w {
		tot += n
	}
	if tot == 0 {
		return
	}
	for i, n := range w {
		r.addRuns(names[i], sc, total*float64(n)/float64(tot))
	}
}
