package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// group is one state's G scored proposals.
type group struct {
	State   string      `json:"state"`
	Task    *taskInfo   `json:"-"`
	TaskKey string      `json:"task"`
	Cands   []candidate `json:"candidates"`
	Adv     []float64   `json:"advantages,omitempty"`
	Kept    bool        `json:"kept"`
	// Parent is the solution the group's candidates are children of (the
	// seed program unless a group made a new one), and ParentGain the
	// real gain a child must beat to count as Improve.
	Parent     plugins.Proposal `json:"parent"`
	ParentGain float64          `json:"parent_gain,omitempty"`
	// NewParent is 1 + the index of the child that became the task's new
	// parent, when every candidate was judged Improve; 0 when none did.
	NewParent int `json:"new_parent,omitempty"`
	// prior are the proposals a candidate repeats when it equals one: the
	// task's records in the world model's context and in the state's
	// history, by proposalKey.
	prior map[string]bool
}

// taskParent is a task's current parent in a parent-conditioned RL loop,
// and the real gain of the nearest verified program of its line.
type taskParent struct {
	p    plugins.Proposal
	gain float64
}

// seedParent is the parent every task starts from: its seed program, the
// reference configuration.
func seedParent() plugins.Proposal {
	return plugins.Proposal{ID: "base", Text: "the task's reference configuration"}
}

// StepFigures are a loop step's monitoring figures.
type StepFigures struct {
	Loop       string  `json:"loop"`
	Step       int     `json:"step"`
	MeanReward float64 `json:"mean_reward"`
	Groups     int     `json:"groups"`
	Dropped    int     `json:"dropped_zero_variance"`
	Samples    int     `json:"samples"`
	RealRuns   int     `json:"real_runs"`
	USD        float64 `json:"usd"`
	GPUHours   float64 `json:"gpu_hours"`
	Routed     int     `json:"routed,omitempty"`
	Candidates int     `json:"candidates,omitempty"`
	// Unrewarded counts candidates routed to a real run the budget could
	// not pay: they have no reward and are left out of the update.
	Unrewarded  int     `json:"unrewarded,omitempty"`
	BestGain    float64 `json:"best_gain,omitempty"`
	MeanPredict float64 `json:"mean_predicted_gain,omitempty"`
	// Round is never set on RL steps; it tells them from evolution rounds
	// in the journal.
	Round int `json:"round,omitempty"`
}

// CalibrationFigures are one calibration round's monitoring figures: the
// world model's error on the calibration proposals before they join its
// context.
type CalibrationFigures struct {
	Round     int     `json:"round"`
	AfterStep int     `json:"after_step"`
	Runs      int     `json:"runs"`
	MAE       float64 `json:"mae"`
	// RewardGap is the mean |clip(predicted/scale) - clip(real/scale)|:
	// the gap in reward units, where a diverging run counts at -c rather
	// than by its raw metric.
	RewardGap float64 `json:"reward_gap"`
	RankAcc   float64 `json:"rank_accuracy"`
	Pairs     int     `json:"pairs"`
	// StateRankAcc and AdvCosine are within-state: over pairs, and over
	// group-relative advantages, of calibrated proposals of one rollout
	// state (StatePairs pairs, StateGroups states with two or more).
	StateRankAcc float64      `json:"state_rank_accuracy"`
	StatePairs   int          `json:"state_pairs"`
	AdvCosine    float64      `json:"advantage_cosine"`
	StateGroups  int          `json:"state_groups"`
	Points       []CalibPoint `json:"points,omitempty"`
	Records      int          `json:"records"`
}

// CalibPoint is one calibration proposal's predicted and real gain.
type CalibPoint struct {
	Task      string  `json:"task"`
	State     string  `json:"state,omitempty"`
	Proposal  string  `json:"proposal"`
	Predicted float64 `json:"predicted"`
	Real      float64 `json:"real"`
	// PredictedReward and RealReward are the gains normalised by the
	// task's scale and clipped to [-c, c].
	PredictedReward float64 `json:"predicted_reward"`
	RealReward      float64 `json:"real_reward"`
}

// policyRecord is a journaled policy update.
type policyRecord struct {
	Step    int                `json:"step"`
	State   []byte             `json:"state"`
	Stats   map[string]float64 `json:"stats,omitempty"`
	Samples int                `json:"samples"`
	Failed  string             `json:"failed,omitempty"`
}

// rlLoop is one RL loop's phase: the loop as the plan binds it (its
// reward shaping, the critic that judges its candidates and its router) and
// what the loop keeps while it runs (its rollouts, the proposals already
// calibrated). The runner under it is the service every phase shares:
// calls, real runs, the journal and the budget.
type rlLoop struct {
	*runner
	l     *plan.Loop
	ph    *plan.Phase
	sh    *shaper
	judge *plan.Critic // nil: no critic judges the candidates
	rt    *router
	// rollouts are the loop's rollouts, oldest first.
	rollouts   [][]*group
	calibrated map[string]bool
	// parents is each task's parent (by task key) where the loop moves it
	// (new_parent = "all_improve").
	parents map[string]*taskParent
	// fixedPolicy: the proposer's plugin cannot update a policy.
	fixedPolicy bool
}

// newRLLoop binds the loop of an RL phase as the plan resolved it.
func newRLLoop(r *runner, ph *plan.Phase) (*rlLoop, error) {
	l := r.loops[ph.Loop]
	if l == nil {
		return nil, fmt.Errorf("%w: the plan has no loop %q", errPermanent, ph.Loop)
	}
	sh, err := newShaper(r.rewards[l.Reward])
	if err != nil {
		return nil, err
	}
	// The critic the plan binds judges every candidate; it routes some to
	// real runs only where the plan says it does.
	judge, rt, err := r.judgeOf(l)
	if err != nil {
		return nil, err
	}
	return &rlLoop{runner: r, l: l, ph: ph, sh: sh, judge: judge, rt: rt, calibrated: map[string]bool{}, parents: map[string]*taskParent{}}, nil
}

// judgeOf is the critic the plan binds to judge a loop's candidates, and
// its router; nil, nil when no critic judges them.
func (r *runner) judgeOf(l *plan.Loop) (*plan.Critic, *router, error) {
	if l.Critic == "" {
		return nil, nil, nil
	}
	c := r.critics[l.Critic]
	if c == nil {
		return nil, nil, fmt.Errorf("%w: loop %s: the plan has no critic %q", errPermanent, l.Name, l.Critic)
	}
	rt, err := newRouter(c)
	return c, rt, err
}

// rlPhase runs an RL loop's steps with its calibration rounds.
func (r *runner) rlPhase(idx int, ph *plan.Phase) error {
	x, err := newRLLoop(r, ph)
	if err != nil {
		return err
	}
	return x.run(idx, ph)
}

func (r *rlLoop) run(idx int, ph *plan.Phase) error {
	l := r.l
	var err error
	var cals []*plan.Phase
	for _, c := range r.v.Phases[idx+1:] {
		if c.Kind == plan.PhaseCalibration && (c.Loop == "" || c.Loop == l.Name) {
			cals = append(cals, c)
		}
	}
	steps := int(math.Round(l.Steps.Expected))
	if l.UntilBudget {
		// Until the budget is spent, and never past the most steps the
		// plan counts: the estimate's high is a bound the run keeps.
		steps = int(math.Floor(l.Steps.High + 1e-9))
		if !l.Steps.Bounded() {
			// Nothing bounds the steps (W_UNBOUNDED): the budget alone
			// stops the loop.
			steps = math.MaxInt
		}
	}
	every := l.RolloutEvery
	total := steps
	if total == math.MaxInt {
		total = -1 // no known end: a spinner
	}
	r.progress.start(ph.Name, total, "steps")
	var rollout []*group
	calRound := 0
	for t := 0; t < steps; t++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if t%every == 0 {
			if l.UntilBudget && !r.canAffordRefresh() {
				r.progress.logf("loop %s: budget spent after %d steps", l.Name, t)
				break
			}
			if rollout, err = r.rollout(t / every); err != nil {
				return err
			}
			r.rollouts = append(r.rollouts, rollout)
		}
		per := (len(rollout) + every - 1) / every
		lo, hi := min((t%every)*per, len(rollout)), min((t%every+1)*per, len(rollout))
		batch, err := r.refill(t, rollout[lo:hi])
		if err != nil {
			return err
		}
		if err := r.update(t, batch); err != nil {
			return err
		}
		r.steps++
		r.measured.loop(l.Name, func(m *MeasuredLoop) { m.Steps++ })
		r.progress.step(fmt.Sprintf("step %d", t+1))
		for calRound < len(cals) && cals[calRound].AfterStep == t+1 {
			r.phase = cals[calRound].Name
			err := r.calibrate(calRound, cals[calRound])
			r.phase = ph.Name
			if err != nil {
				return err
			}
			calRound++
		}
	}
	// Rounds scheduled after the last step that ran are skipped: a loop that
	// stops early for budget has nothing newer to calibrate.
	return nil
}

// refill is DAPO's dynamic sampling: a step's groups whose rewards are
// all equal carry no advantage and are dropped, so as many fresh groups are
// sampled in their place, and again for those of them that are dropped, at
// most the plan's resample_rounds extra rounds. The fresh groups join the
// current rollout (calibration may pick from them).
func (r *rlLoop) refill(t int, groups []*group) ([]*group, error) {
	l := r.l
	if l.ZeroVariance != "drop" || l.ResampleRounds <= 0 {
		return groups, nil
	}
	// A copy: groups is a window of the rollout, and appending to it would
	// overwrite the next step's groups.
	out := append([]*group(nil), groups...)
	dropped := zeroVariance(groups)
	for round := 1; round <= l.ResampleRounds && dropped > 0; round++ {
		if l.UntilBudget && !r.canAffordRefresh() {
			break
		}
		extra, err := r.sampleGroups(fmt.Sprintf("r%d/t%d/x%d", t/l.RolloutEvery, t, round), dropped)
		if err != nil {
			return nil, err
		}
		r.rollouts[len(r.rollouts)-1] = append(r.rollouts[len(r.rollouts)-1], extra...)
		r.measured.loop(l.Name, func(m *MeasuredLoop) { m.Resampled += len(extra) })
		out = append(out, extra...)
		dropped = zeroVariance(extra)
	}
	return out, nil
}

// zeroVariance counts the groups whose rewards are all equal.
func zeroVariance(groups []*group) int {
	n := 0
	for _, gr := range groups {
		rewards := make([]float64, len(gr.Cands))
		for i, c := range gr.Cands {
			rewards[i] = c.Reward
		}
		if _, ok := advantages(rewards); !ok {
			n++
		}
	}
	return n
}

// canAffordRefresh reports whether the budget, less what later phases
// hold back, still pays for a rollout refresh: the low figure of the real
// runs per refresh that the plan's cost model counts (at least one, since
// an until_budget loop always makes some), and some dollars.
func (r *rlLoop) canAffordRefresh() bool {
	l := r.l
	if r.budget.CheckLLM() != nil {
		return false
	}
	// A refresh that cannot pay one real run under the GPU-hour and dollar
	// caps (less what later phases hold back) would only skip its runs.
	fits := false
	for _, t := range r.tasksOf("", l.Split) {
		if gpuh, usd := r.runCost(t.Env); r.budget.Fits(gpuh, usd) {
			fits = true
			break
		}
	}
	if !fits {
		return false
	}
	left := r.budget.RunsLeft()
	if left < 0 {
		return true
	}
	need := 1.0
	if c := l.RunsPerRefresh; c != nil {
		need = max(need, math.Ceil(c.Low-1e-9))
	}
	return float64(left-r.floor) >= need
}

// rollout samples G proposals for each of the loop's states and scores them.
func (r *rlLoop) rollout(refresh int) ([]*group, error) {
	return r.sampleGroups(fmt.Sprintf("r%d", refresh), r.l.StatesPerStep)
}

// sampleGroups samples G proposals for each of n fresh states, named
// LOOP/TAG/sN, and scores them.
func (r *rlLoop) sampleGroups(tag string, states int) ([]*group, error) {
	l, sh := r.l, r.sh
	G := l.ProposalsPerState
	train := r.tasksOf("", l.Split)
	if len(train) == 0 {
		return nil, fmt.Errorf("loop %s: no %s tasks", l.Name, l.Split)
	}
	// Each state's task is drawn from its environment's tasks, with the
	// states spread over environments as the plan counts them (older plans
	// without the spread draw from every task).
	pools := make([][]*taskInfo, states)
	if len(r.ph.Proposals) > 0 {
		s := 0
		for _, e := range r.v.Envs {
			ts := r.tasksOf(e.Name, l.Split)
			for n := 0; n < r.ph.Proposals[e.Name] && s < states; n++ {
				pools[s] = ts
				s++
			}
		}
	}
	groups := make([]*group, states)
	// A repeat is judged against what the state holds when the rollout
	// starts: the task's records in the world model's context and the
	// history its proposer is shown (the state pool grows only after).
	prior := map[string]map[string]bool{}
	for s := range groups {
		pool := pools[s]
		if len(pool) == 0 {
			pool = train
		}
		t := pool[rng(r.v.Seed, fmt.Sprintf("%s/%s/s%d/task", l.Name, tag, s)).IntN(len(pool))]
		gr := &group{State: fmt.Sprintf("%s/%s/s%d", l.Name, tag, s), Task: t, TaskKey: t.Env + "/" + t.Name, Cands: make([]candidate, G), Parent: seedParent()}
		if tp := r.parents[gr.TaskKey]; tp != nil {
			gr.Parent, gr.ParentGain = tp.p, tp.gain
		}
		if prior[gr.TaskKey] == nil {
			prior[gr.TaskKey] = r.priorProposals(t)
		}
		gr.prior = prior[gr.TaskKey]
		groups[s] = gr
	}
	// Propose.
	type at struct{ s, g int }
	all := make([]at, 0, states*G)
	for s := 0; s < states; s++ {
		for g := 0; g < G; g++ {
			all = append(all, at{s, g})
		}
	}
	err := parallel(len(all), r.concurrency(l.Proposer), func(i int) error {
		gr, g := groups[all[i].s], all[i].g
		p, st, ok, err := r.propose(l.Proposer, fmt.Sprintf("%s/%d/propose", gr.State, g), gr.Task, gr.State, parentArg(gr.Parent))
		gr.Cands[g].Proposal, gr.Cands[g].state = p, st
		gr.Cands[g].Infeasible = !ok
		return err
	})
	if err != nil {
		return nil, err
	}
	source := l.RewardSource
	switch {
	case r.judge != nil:
		err = r.screenCandidates(groups, all2(states, G))
	case source == "predicted":
		// The builder decides feasibility: a candidate that does not
		// build gets the infeasible reward, and no prediction.
		if err = r.buildCandidates(groups, all2(states, G)); err == nil {
			err = r.predictCandidates(groups, all2(states, G))
		}
	case source == "real":
		err = r.verifyCandidates(groups, all2(states, G))
	default:
		err = fmt.Errorf("%w: loop %s: reward source %q with no critic to judge it", errPermanent, l.Name, source)
	}
	if err != nil {
		return nil, err
	}
	// Shape rewards, journal them and expand the state pool.
	for _, gr := range groups {
		if err := sh.shape(gr.Cands, *gr.Task, gr.prior); err != nil {
			return nil, err
		}
		r.moveParent(gr)
		r.candidates += len(gr.Cands)
		r.measured.loop(l.Name, func(m *MeasuredLoop) { m.Candidates += len(gr.Cands) })
		if err := r.j.Append(journal.KindReward, gr.State, gr); err != nil {
			return nil, err
		}
		var real, predicted []record
		for _, c := range gr.Cands {
			if c.Infeasible || c.Repeat || c.Skipped {
				continue
			}
			if c.HasReal {
				real = append(real, record{Task: gr.Task.Name, Env: gr.Task.Env, Proposal: c.Proposal, Gain: c.RealGain})
			} else if source == "predicted" {
				predicted = append(predicted, record{Task: gr.Task.Name, Env: gr.Task.Env, Proposal: c.Proposal, Gain: c.Predicted, Predicted: true})
			}
		}
		// Real results join the world model's context; predictions only
		// the state pool (state-pool expansion without real runs).
		r.addRecords(true, real...)
		r.addRecords(false, predicted...)
	}
	return groups, nil
}

// parentArg is the parent a proposer is shown: none for the seed program
// (the task's baseline configuration), else the parent.
func parentArg(p plugins.Proposal) *plugins.Proposal {
	if p.ID == "base" && len(p.Edits) == 0 {
		return nil
	}
	return &p
}

// child is a candidate as it runs: its edits on top of its parent's.
func child(parent, p plugins.Proposal) plugins.Proposal {
	if len(parent.Edits) == 0 {
		return p
	}
	return merge(parent, p)
}

// priorProposals are the proposals a candidate for task t repeats: the
// task's records in the world model's context and in the history its
// proposer is shown.
func (r *rlLoop) priorProposals(t *taskInfo) map[string]bool {
	out := map[string]bool{}
	for _, rec := range r.context() {
		if rec.Task == t.Name && rec.Env == t.Env {
			out[proposalKey(rec.Proposal)] = true
		}
	}
	for _, rec := range r.history(t) {
		out[proposalKey(rec.Proposal)] = true
	}
	return out
}

// moveParent makes one child of a group, at random, its task's new parent
// when the loop says all_improve and every candidate of the group was
// judged Improve (a candidate that did not build, or whose routed run the
// budget could not pay, was not). The child's real gain becomes the line's
// when it was verified; else the line keeps its last verified gain.
func (r *rlLoop) moveParent(gr *group) {
	if r.l.NewParent != "all_improve" || len(gr.Cands) == 0 {
		return
	}
	for _, c := range gr.Cands {
		if !c.Improve {
			return
		}
	}
	i := rng(r.v.Seed, gr.State+"/new_parent").IntN(len(gr.Cands))
	c := gr.Cands[i]
	tp := &taskParent{p: clone(c.Proposal), gain: gr.ParentGain}
	if c.HasReal {
		tp.gain = c.RealGain
	}
	r.parents[gr.TaskKey] = tp
	gr.NewParent = i + 1
}

// buildCandidates builds every feasible candidate with the loop's builder
// (none: each runs as proposed): a candidate that does not build, after
// the loop's repairs, is infeasible.
func (r *rlLoop) buildCandidates(groups []*group, all []pos) error {
	l := r.l
	if l.Builder == "" {
		return nil
	}
	return parallel(len(all), r.concurrency(l.Builder), func(i int) error {
		gr := groups[all[i].s]
		c := &gr.Cands[all[i].g]
		if c.Infeasible {
			return nil
		}
		p, ok, err := r.implement(l.Builder, l.Name, fmt.Sprintf("%s/%d/implement", gr.State, all[i].g), gr.Task, child(gr.Parent, c.Proposal))
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
	ctx := r.context()
	return parallel(len(all), r.concurrency(ro), func(i int) error {
		gr := groups[all[i].s]
		c := &gr.Cands[all[i].g]
		if c.Infeasible {
			return nil
		}
		var resp payload.PredictResponse
		req := payload.PredictRequest{Task: gr.Task.Name, Env: gr.Task.Env, Records: ctx, Proposal: c.Proposal}
		if err := r.complete(ro, fmt.Sprintf("%s/%d/predict", gr.State, all[i].g), req, &resp); errors.Is(err, errCallFailed) {
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
	err := parallel(len(all), r.concurrency(l.Builder), func(i int) error {
		gr := groups[all[i].s]
		c := &gr.Cands[all[i].g]
		if c.Infeasible {
			return nil
		}
		key := fmt.Sprintf("%s/%d", gr.State, all[i].g)
		p, feasible, err := r.implement(l.Builder, l.Name, key+"/implement", gr.Task, child(gr.Parent, c.Proposal))
		c.Proposal, c.Infeasible = p, !feasible
		runs[i], ok[i] = realRun{Key: key, Task: gr.Task, Proposal: p}, feasible
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
func (r *runner) runInto(groups []*group, all []pos, runs []realRun, sel []bool) error {
	var todo []realRun
	var at []int
	for i := range runs {
		if sel[i] {
			todo = append(todo, runs[i])
			at = append(at, i)
		}
	}
	out, err := r.runReal(todo)
	if err != nil {
		return err
	}
	for n, i := range at {
		c := &groups[all[i].s].Cands[all[i].g]
		o := out[n]
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
	err := parallel(len(all), r.concurrency(l.Builder), func(i int) error {
		gr := groups[all[i].s]
		cand := &gr.Cands[all[i].g]
		if cand.Infeasible {
			return nil
		}
		key := fmt.Sprintf("%s/%d", gr.State, all[i].g)
		v, p, ok, err := r.screen(l, key, gr.Task, gr.Parent, child(gr.Parent, cand.Proposal), c, rt)
		if err != nil {
			return err
		}
		cand.Proposal, cand.Infeasible, feasible[i] = p, !ok, ok
		verdicts[i] = v
		runs[i] = realRun{Key: key, Task: gr.Task, Proposal: p}
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
	r.measured.loop(l.Name, func(m *MeasuredLoop) { m.Judged += judged; m.Routed += routed })
	if err := r.runInto(groups, all, runs, sel); err != nil {
		return err
	}
	for i := range all {
		gr := groups[all[i].s]
		cand := &gr.Cands[all[i].g]
		if !feasible[i] {
			continue
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
			r.measured.critic(l.Name, critPoint{score: verdicts[i].ImproveShare, improved: improved,
				errored: better != improved, routed: verdicts[i].Routed})
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
func (r *runner) screen(l *plan.Loop, key string, t *taskInfo, parent, child plugins.Proposal, c *plan.Critic, rt *router) (verdict, plugins.Proposal, bool, error) {
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
	votes := make([]string, k)
	req := payload.CritiqueRequest{Task: t.Name, Env: t.Env, Parent: parent, Child: p, Summary: summary, Labels: c.Labels}
	for v := 0; v < k; v++ {
		var resp payload.CritiqueResponse
		// A failed vote is an unknown label, which counts as the worst.
		if err := r.complete(ro, fmt.Sprintf("%s/critic/%d", key, v), req, &resp); err != nil && !errors.Is(err, errCallFailed) {
			return verdict{}, p, false, err
		}
		votes[v] = resp.Label
	}
	vd := aggregate(c, votes)
	if err := rt.route(&vd, k); err != nil {
		return vd, p, false, err
	}
	return vd, p, true, nil
}

// update makes one policy-gradient step on a slice of the rollout's groups:
// group-relative advantages, zero-variance groups dropped (or kept with
// zero advantages when the loop says keep).
func (r *rlLoop) update(t int, groups []*group) error {
	l := r.l
	var samples []plugins.Sample
	var states []*payload.ProposeRequest
	fig := StepFigures{Loop: l.Name, Step: t + 1, Groups: len(groups)}
	var sum float64
	var n int
	for _, gr := range groups {
		// A candidate whose real run the budget could not pay has no
		// reward: it joins neither the group's advantages nor the update.
		var rewarded []int
		var rewards []float64
		for i, c := range gr.Cands {
			fig.Candidates++
			if c.Routed {
				fig.Routed++
			}
			if c.Skipped {
				fig.Unrewarded++
				continue
			}
			rewarded = append(rewarded, i)
			rewards = append(rewards, c.Reward)
			sum += c.Reward
			n++
			fig.MeanPredict += c.Predicted
		}
		adv, ok := advantages(rewards)
		gr.Adv = make([]float64, len(gr.Cands))
		for k, i := range rewarded {
			gr.Adv[i] = adv[k]
		}
		gr.Kept = (ok || l.ZeroVariance == "keep") && len(rewarded) > 0
		if !gr.Kept {
			fig.Dropped++
			continue
		}
		for _, i := range rewarded {
			c := gr.Cands[i]
			if c.Infeasible && c.Proposal.ID == "" && len(c.Proposal.Edits) == 0 {
				continue // the proposer gave nothing to reinforce
			}
			samples = append(samples, plugins.Sample{Proposal: c.Proposal, Advantage: gr.Adv[i], Group: gr.State, Reward: c.Reward})
			states = append(states, c.state)
		}
	}
	if n > 0 {
		fig.MeanReward = sum / float64(n)
		fig.MeanPredict /= float64(n)
	}
	fig.Samples = len(samples)
	key := fmt.Sprintf("%s/update/%d", l.Name, t)
	// A sample's state is the request it was proposed from, encoded only
	// when an update needs it: a proposer that cannot train never does.
	encodeStates := func() error {
		for i, st := range states {
			if st == nil {
				continue
			}
			b, err := payload.Encode(st)
			if err != nil {
				return err
			}
			samples[i].State = string(b)
		}
		return nil
	}
	if l.Update != nil {
		if err := encodeStates(); err != nil {
			return err
		}
		if err := r.trainPolicy(t, key, samples); err != nil {
			return err
		}
	} else if d, ok := r.j.Call(journal.KindPolicy, key); ok {
		var pr policyRecord
		if err := json.Unmarshal(d, &pr); err == nil && pr.Failed == "" {
			r.setPolicy(l.Proposer, pr.State)
			r.updates++
		}
	} else if len(samples) > 0 && !r.fixedPolicy {
		if err := encodeStates(); err != nil {
			return err
		}
		ro := r.roles[l.Proposer]
		var resp *plugins.UpdateResponse
		req := &plugins.UpdateRequest{Model: ro.Model, LearningRate: l.LearningRate, Samples: samples, State: r.policyOf(ro.Name), Config: r.config[ro.Plugin],
			Algorithm: l.Algorithm, ClipLow: l.ClipLow, ClipHigh: l.ClipHigh, KLCoef: l.KLCoef, TokenLevel: l.TokenLevel, Epochs: l.Epochs}
		err := r.call(ro.Plugin, func(inst Instance) error {
			m := inst.LLM()
			if m == nil {
				return fmt.Errorf("%w: plugin %s is not an LLM", errPermanent, ro.Plugin)
			}
			var err error
			resp, err = m.Update(r.ctx, req)
			return err
		})
		switch {
		case errors.Is(err, plugins.ErrUnsupported):
			r.fixedPolicy = true
			r.progress.logf("proposer %s cannot be trained through its plugin; the policy stays fixed", ro.Name)
		case err != nil && r.ctx.Err() != nil:
			return err
		case err != nil:
			// The policy stays as it was; journaled so a resumed run does
			// the same.
			r.progress.logf("policy update at step %d failed; the policy stays: %v", t+1, err)
			if err := r.j.Append(journal.KindPolicy, key, policyRecord{Step: t + 1, State: r.policyOf(ro.Name), Samples: len(samples), Failed: err.Error()}); err != nil {
				return err
			}
		default:
			r.setPolicy(ro.Name, resp.State)
			r.updates++
			if err := r.j.Append(journal.KindPolicy, key, policyRecord{Step: t + 1, State: resp.State, Stats: resp.Stats, Samples: len(samples)}); err != nil {
				return err
			}
		}
	}
	s := r.budget.Spent()
	fig.RealRuns, fig.USD, fig.GPUHours, fig.BestGain = s.RealRuns, round6(s.USD), round6(s.GPUHours), r.bestGain
	if err := r.j.Append(journal.KindStep, fmt.Sprintf("%s/%d", l.Name, t+1), fig); err != nil {
		return err
	}
	return r.j.Flush()
}

// calibrate runs one calibration round: the top-rated (or random) proposals
// of the current rollout are run for real and join the world model's
// context; the error of its predictions on them is recorded first.
func (r *rlLoop) calibrate(round int, ph *plan.Phase) error {
	c := r.v.Calibration
	if c == nil || round >= len(c.Budget) {
		return fmt.Errorf("%w: calibration round %d has no budget in the plan", errPermanent, round+1)
	}
	budget, sel := c.Budget[round], ph.Select
	type pick struct {
		gr *group
		c  *candidate
		i  int
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
				these = append(these, pick{gr, c, len(cands) + len(these)})
			}
		}
		if sel == "random" {
			g := rng(r.v.Seed, fmt.Sprintf("calibration/%d/%d", round, ro))
			g.Shuffle(len(these), func(a, b int) { these[a], these[b] = these[b], these[a] })
		} else {
			sort.SliceStable(these, func(a, b int) bool { return these[a].c.Reward > these[b].c.Reward })
		}
		cands = append(cands, these...)
	}
	// One run per distinct (task, proposal), and from each environment at
	// most the round's share of the plan (ph.Proposals), so the runs per
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
		if ph.Proposals != nil {
			env := p.gr.Task.Env
			if taken[env] >= ph.Proposals[env] {
				continue
			}
			taken[env]++
		}
		r.calibrated[k] = true
		chosen = append(chosen, p)
	}
	r.progress.logf("calibration round %d after step %d: %d real runs", round+1, ph.AfterStep, len(chosen))
	// The picks were built in their rollout (the builder decided they are
	// feasible), so they run as built; a candidate that did not build was
	// never a pick, and the next top-rated one took its place.
	todo := make([]realRun, len(chosen))
	at := make([]int, len(chosen))
	for i, p := range chosen {
		todo[i] = realRun{Key: fmt.Sprintf("calibration/%d/%d", round, i), Task: p.gr.Task, Proposal: p.c.Proposal}
		at[i] = i
	}
	runs := todo
	out, err := r.runReal(todo)
	if err != nil {
		return err
	}
	fig := CalibrationFigures{Round: round + 1, AfterStep: ph.AfterStep}
	var recs []record
	for n, i := range at {
		o := out[n]
		if o.Skipped || o.Failed {
			continue
		}
		fig.Runs++
		p := chosen[i]
		rec := record{Task: p.gr.Task.Name, Env: p.gr.Task.Env, Proposal: runs[i].Proposal, Gain: o.Gain, Infeasible: o.Infeasible}
		recs = append(recs, rec)
		if !o.Infeasible {
			pr, rr := r.sh.normalised(p.c.Predicted, *p.gr.Task), r.sh.normalised(o.Gain, *p.gr.Task)
			fig.Points = append(fig.Points, CalibPoint{Task: p.gr.TaskKey, State: p.gr.State, Proposal: proposalKey(p.c.Proposal), Predicted: p.c.Predicted, Real: o.Gain, PredictedReward: pr, RealReward: rr})
		}
	}
	fig.MAE, fig.RankAcc, fig.Pairs = calibrationError(fig.Points)
	fig.StateRankAcc, fig.StatePairs, fig.AdvCosine, fig.StateGroups = withinState(fig.Points)
	for _, p := range fig.Points {
		fig.RewardGap += math.Abs(p.PredictedReward-p.RealReward) / float64(len(fig.Points))
	}
	r.addRecords(true, recs...)
	fig.Records = len(r.context())
	if err := r.j.Append(journal.KindCalibration, fmt.Sprintf("%d", round+1), fig); err != nil {
		return err
	}
	return r.j.Flush()
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
