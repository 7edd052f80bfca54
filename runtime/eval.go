package runtime

import (
	"errors"
	"fmt"
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// EvalFigures are the evaluation results, as the papers report them: per
// arm (the evaluated policy, and the Base and in-context arms the plan
// names), Avg@k and Best@k of real gain over the states of every task, per
// model family, with gains normalised by each task's scale when the plan
// says so; the share of negative-gain proposals; the share of states where
// the policy's Avg@k beats the Base arm's; and, with a predictor, how well
// the world model ranks the evaluated proposals it never saw measured.
// Avg, Best, Negative and Tasks repeat the policy arm's figures.
type EvalFigures struct {
	AvgAt     int            `json:"avg_at"`
	BestAt    int            `json:"best_at"`
	States    int            `json:"states_per_task"`
	Normalize string         `json:"normalize"`
	Avg       float64        `json:"avg_at_k"`
	Best      float64        `json:"best_at_k"`
	Negative  float64        `json:"negative_share"`
	Tasks     []TaskEvalFigs `json:"tasks"`
	Arms      []ArmFigures   `json:"arms"`
	// BeatsBase is the share of states where the policy's Avg@k is above
	// the Base arm's; nil without a Base arm.
	BeatsBase *float64    `json:"beats_base_share,omitempty"`
	RWM       *RWMFigures `json:"rwm,omitempty"`
	// AvgGot and BestGot are set when a state got fewer measured
	// proposals than k (a cap left no run for some, or they failed): the
	// fewest any state of any arm averaged (Avg) or took the best of
	// (Best). Such figures are not Avg@k and never print as it.
	AvgGot  *int `json:"avg_at_got,omitempty"`
	BestGot *int `json:"best_at_got,omitempty"`
}

// AvgLabel names the Avg figure: "Avg@k", or "Avg@n of k asked" when a
// state got only n measured proposals.
func (f EvalFigures) AvgLabel() string { return atLabel("Avg", f.AvgAt, f.AvgGot) }

// BestLabel is AvgLabel for Best@k.
func (f EvalFigures) BestLabel() string { return atLabel("Best", f.BestAt, f.BestGot) }

func atLabel(name string, k int, got *int) string {
	if got == nil || *got >= k {
		return fmt.Sprintf("%s@%d", name, k)
	}
	return fmt.Sprintf("%s@%d of %d asked", name, *got, k)
}

// ArmFigures are one arm's results over every evaluated state.
type ArmFigures struct {
	Arm      string `json:"arm"`
	Proposer string `json:"proposer"`
	// Records is how many real records the arm's prompts carried (icl).
	Records  int             `json:"records,omitempty"`
	States   int             `json:"states"`
	Avg      float64         `json:"avg_at_k"`
	Best     float64         `json:"best_at_k"`
	Negative float64         `json:"negative_share"`
	Families []FamilyFigures `json:"families"`
	Tasks    []TaskEvalFigs  `json:"tasks"`
}

// FamilyFigures are an arm's results over the states of one model family.
type FamilyFigures struct {
	Family   string  `json:"family"`
	States   int     `json:"states"`
	Avg      float64 `json:"avg_at_k"`
	Best     float64 `json:"best_at_k"`
	Negative float64 `json:"negative_share"`
}

// TaskEvalFigs is one task's evaluation by one arm: the gains of every
// proposal of every state, and the mean over states of Avg@k and Best@k.
type TaskEvalFigs struct {
	Task   string    `json:"task"`
	Family string    `json:"family,omitempty"`
	Gains  []float64 `json:"gains"`
	Avg    float64   `json:"avg"`
	Best   float64   `json:"best"`
}

// RWMFigures measure a world model on held-out records: its predictions of
// the evaluated proposals, made before their real runs, against what the
// runs measured (normalised as the evaluation is). Rank accuracy and the
// advantage cosine are within-state: pairs and group-relative advantages
// among the k proposals of one state of one arm.
type RWMFigures struct {
	Role    string `json:"role"`
	Records int    `json:"context_records"`
	Points  int    `json:"points"`
	// RankAcc is the share of within-state pairs the predictions order as
	// the real gains do (ties in either skipped); Pairs counts them.
	RankAcc float64 `json:"rank_accuracy"`
	Pairs   int     `json:"pairs"`
	// AdvCosine is the cosine between predicted and real group-relative
	// advantages ((x - mean) / std within a state), over states where
	// both vary; Groups counts them.
	AdvCosine float64 `json:"advantage_cosine"`
	Groups    int     `json:"groups"`
	// Gap is the mean of predicted minus real gain (positive: the world
	// model overrates); MAE its mean absolute value.
	Gap float64 `json:"gap"`
	MAE float64 `json:"mae"`
}

// evalItem is one proposal of one arm for one state of one task.
type evalItem struct {
	arm   int
	t     *taskInfo
	state int
	i     int
	// filled as the item goes
	run       realRun
	feasible  bool
	predicted float64
	hasPred   bool
}

// Execute runs the evaluation: each arm proposes k proposals per state of
// every task (arms.go), the world model predicts them before they run, the
// feasible ones run for real, and the gains are scored per arm, task and
// family.
func (r *evaluation) Execute() error {
	ph, e := r.ph, r.e
	r.tasks = r.s.tasks.of("", e.Split)
	if len(r.tasks) == 0 {
		return fmt.Errorf("evaluation: no %s tasks", e.Split)
	}
	if len(e.Arms) == 0 {
		return fmt.Errorf("%w: the plan's evaluation has no arm", errPermanent)
	}
	// k proposals on each of the states, as the plan states them.
	r.k, r.states = e.K, e.States
	r.items = nil
	for a := range e.Arms {
		for _, t := range r.tasks {
			for s := 0; s < r.states; s++ {
				for i := 0; i < r.k; i++ {
					r.items = append(r.items, &evalItem{arm: a, t: t, state: s, i: i})
				}
			}
		}
	}
	r.s.progress.start(ph.Name, len(r.items), "runs")
	// The in-context arm's records: the real records so far, oldest first,
	// the same for every state.
	r.ctx = r.s.records.context()
	r.records = make([][]record, len(e.Arms))
	for a, arm := range e.Arms {
		if arm.Records > 0 {
			r.records[a] = r.ctx[:min(arm.Records, len(r.ctx))]
		}
	}
	if err := parallel(len(r.items), r.s.concurrency(e.Proposer), func(n int) error {
		return r.propose(r.items[n])
	}); err != nil {
		return err
	}
	gains, real, err := r.measure()
	if err != nil {
		return err
	}
	return r.s.j.Commit(journal.KindEval, ph.Name, r.score(gains, real))
}

// propose has item's arm propose and build its proposal and, with a
// predictor, the world model predict its gain before it runs.
func (r *evaluation) propose(it *evalItem) error {
	e := r.e
	arm := e.Arms[it.arm]
	// Arms share the state (its key salts sampling), as the papers
	// evaluate every policy on the same states.
	state := fmt.Sprintf("eval/%s/%s/s%d", it.t.Env, it.t.Name, it.state)
	key := fmt.Sprintf("eval/%s/%s/%s/s%d/%d", arm.Name, it.t.Env, it.t.Name, it.state, it.i)
	if arm.Name == plan.ArmPolicy && r.states == 1 && len(e.Arms) == 1 {
		// A plain Avg@k evaluation keeps the keys (and so the samples)
		// it had before states and arms existed.
		key = fmt.Sprintf("eval/%s/%s/%d", it.t.Env, it.t.Name, it.i)
		state = "eval/" + it.t.Env + "/" + it.t.Name
	}
	p, _, got, err := r.s.proposeWith(arm.Proposer, key+"/propose", it.t, state, nil, proposeOpts{records: r.records[it.arm], untrained: arm.Untrained})
	if err != nil || !got {
		return err
	}
	p, feasible, err := r.s.implement(r.e.Builder, "", key+"/implement", it.t, p)
	if err != nil {
		return err
	}
	it.run, it.feasible = realRun{Key: key, Task: it.t, Proposal: p, fix: fixerFor(r.e.Builder, "", key+"/implement", it.t)}, feasible
	if !feasible || e.Predictor == "" {
		return nil
	}
	return r.predict(it, key, p)
}

// predict has the world model predict item's gain before the run; the
// run's record never joins its context, so these are held-out
// predictions. A call that fails leaves the item without a prediction.
func (r *evaluation) predict(it *evalItem, key string, p plugins.Proposal) error {
	var resp payload.PredictResponse
	req := payload.PredictRequest{Task: it.t.Name, Env: it.t.Env, Records: r.ctx, Proposal: p}
	if err := r.s.complete(r.e.Predictor, key+"/predict", req, &resp); errors.Is(err, errCallFailed) {
		return nil
	} else if err != nil {
		return err
	}
	it.predicted, it.hasPred = resp.PredictedGain, true
	return nil
}

// measure runs the feasible items for real. An infeasible proposal counts
// as zero gain: the base setup stays. A run skipped for budget or failed
// counts not at all (it has no gain); real says which gains were run.
func (r *evaluation) measure() (gains map[*evalItem]float64, real map[*evalItem]bool, err error) {
	var todo []realRun
	var at []*evalItem
	for _, it := range r.items {
		if it.feasible {
			todo = append(todo, it.run)
			at = append(at, it)
		}
	}
	out, err := r.s.runReal(r.sc, todo)
	if err != nil {
		return nil, nil, err
	}
	gains = map[*evalItem]float64{}
	real = map[*evalItem]bool{}
	for _, it := range r.items {
		gains[it] = 0
	}
	for m, it := range at {
		switch o := out[m]; {
		case o.Skipped || o.Failed:
			delete(gains, it)
		case !o.Infeasible:
			gains[it] = r.evalNorm(o.Gain, it.t)
			real[it] = true
		}
	}
	return gains, real, nil
}

// evalNorm is a gain as the evaluation reports it: over the task's scale
// when the plan normalises (a task without a scale counts in raw units).
func (r *evaluation) evalNorm(g float64, t *taskInfo) float64 {
	if r.e.Normalize == "scale" && t.Scale > 0 {
		return g / t.Scale
	}
	return g
}

// famAcc sums per-state figures.
type famAcc struct {
	states, neg, valid int
	avg, best          float64
}

func (f *famAcc) add(avg, best float64, neg, valid int) {
	f.states++
	f.avg += avg
	f.best += best
	f.neg += neg
	f.valid += valid
}

func (f *famAcc) figures() (states int, avg, best, neg float64) {
	if f.states == 0 {
		return 0, 0, 0, 0
	}
	n := float64(f.states)
	if f.valid > 0 {
		neg = float64(f.neg) / float64(f.valid)
	}
	return f.states, round6(f.avg / n), round6(f.best / n), round6(neg)
}

// rwmFigures compares held-out predictions with real gains, within states.
func rwmFigures(role string, records int, items []*evalItem, gains map[*evalItem]float64, real map[*evalItem]bool, pred func(*evalItem) float64) *RWMFigures {
	type key struct {
		arm   int
		t     *taskInfo
		state int
	}
	groups := map[key][][2]float64{}
	var order []key
	f := &RWMFigures{Role: role, Records: records}
	for _, it := range items {
		if !it.hasPred || !real[it] {
			continue
		}
		k := key{it.arm, it.t, it.state}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		p, g := pred(it), gains[it]
		groups[k] = append(groups[k], [2]float64{p, g})
		f.Points++
		f.Gap += p - g
		f.MAE += math.Abs(p - g)
	}
	if f.Points == 0 {
		return f
	}
	f.Gap, f.MAE = round6(f.Gap/float64(f.Points)), round6(f.MAE/float64(f.Points))
	gs := make([][][2]float64, len(order))
	for i, k := range order {
		gs[i] = groups[k]
	}
	f.RankAcc, f.Pairs, f.AdvCosine, f.Groups = groupStats(gs)
	return f
}

// groupStats compares predicted (column 0) with real (column 1) values
// within each group: the share of pairs ordered alike (ties in either
// skipped) and the cosine between their group-relative advantages, over
// the groups where both vary.
func groupStats(gs [][][2]float64) (acc float64, pairs int, cos float64, groups int) {
	var right int
	var dot, np, nr float64
	for _, g := range gs {
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				dp, dr := g[i][0]-g[j][0], g[i][1]-g[j][1]
				if dp == 0 || dr == 0 {
					continue
				}
				pairs++
				if (dp > 0) == (dr > 0) {
					right++
				}
			}
		}
		ap, ar := standardize(g, 0), standardize(g, 1)
		if ap == nil || ar == nil {
			continue
		}
		groups++
		for i := range ap {
			dot += ap[i] * ar[i]
			np += ap[i] * ap[i]
			nr += ar[i] * ar[i]
		}
	}
	if pairs > 0 {
		acc = round6(float64(right) / float64(pairs))
	}
	if np > 0 && nr > 0 {
		cos = round6(dot / math.Sqrt(np*nr))
	}
	return acc, pairs, cos, groups
}

// standardize returns the group-relative advantages (x - mean) / std of
// column c of g, or nil when the group has fewer than two members or does
// not vary.
func standardize(g [][2]float64, c int) []float64 {
	if len(g) < 2 {
		return nil
	}
	var mean float64
	for _, x := range g {
		mean += x[c]
	}
	mean /= float64(len(g))
	var v float64
	for _, x := range g {
		v += (x[c] - mean) * (x[c] - mean)
	}
	sd := math.Sqrt(v / float64(len(g)))
	if sd < 1e-12 {
		return nil
	}
	out := make([]float64, len(g))
	for i, x := range g {
		out[i] = (x[c] - mean) / sd
	}
	return out
}
