package runtime

import (
	"fmt"
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
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
	// parentCand is the candidate key of the real run that measured the
	// parent ("" for the seed program); parentUnmeasured marks a parent no
	// real run measured. Both go into each real run's lineage.
	parentCand       string
	parentUnmeasured bool
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
	// cand is the candidate key of the real run that measured p; "" with
	// unmeasured set when none did.
	cand       string
	unmeasured bool
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
	// Measured is what an update that ran a trainer's command took (nil:
	// unknown, or no such update).
	Measured *updateMeasure `json:"measured,omitempty"`
}

// rlLoop is one RL loop's phase: the loop as the plan binds it (its
// reward shaping, the critic that judges its candidates and its router) and
// what the loop keeps while it runs (its rollouts, the proposals already
// calibrated). The service under it is what every phase shares:
// calls, real runs, the journal and the budget.
type rlLoop struct {
	s     *service
	sc    scope
	l     *plan.Loop
	ph    *plan.Phase
	body  *plan.RLBody
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
func newRLLoop(r *service, sc scope, idx int, ph *plan.Phase) (*rlLoop, error) {
	l := r.loops[ph.RL.Loop]
	if l == nil {
		return nil, fmt.Errorf("%w: the plan has no loop %q", errPermanent, ph.RL.Loop)
	}
	sh, err := newShaper(r.rewards[l.Reward])
	if err != nil {
		return nil, err
	}
	// The critic the plan binds judges every candidate; it routes some to
	// real runs only where the plan says it does.
	judge, rt, err := judgeOf(r, l)
	if err != nil {
		return nil, err
	}
	return &rlLoop{s: r, sc: sc, l: l, ph: ph, body: ph.RL, sh: sh, judge: judge, rt: rt, calibrated: map[string]bool{}, parents: map[string]*taskParent{}}, nil
}

// judgeOf is the critic the plan binds to judge a loop's candidates, and
// its router; nil, nil when no critic judges them.
func judgeOf(r *service, l *plan.Loop) (*plan.Critic, *router, error) {
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

// newRLPhase binds an RL phase: its loop's steps with its calibration
// rounds.
func newRLPhase(s *service, sc scope, idx int, ph *plan.Phase) (phaseNode, error) {
	return newRLLoop(s, sc, idx, ph)
}

func (r *rlLoop) Execute() error {
	ph := r.ph
	l := r.l
	var err error
	var cals []*plan.CalibrationRound
	if c := r.body.Calibration; c != nil {
		cals = c.Rounds
	}
	// The plan's instruction: these steps, or for a loop that spends the
	// budget at most these, and without a bound (W_UNBOUNDED, 0) as many
	// as the budget allows.
	steps := l.RunSteps
	if l.UntilBudget && steps == 0 {
		steps = math.MaxInt
	}
	every := l.RolloutEvery
	total := steps
	if total == math.MaxInt {
		total = -1 // no known end: a spinner
	}
	r.s.progress.start(ph.Name, total, "steps")
	var rollout []*group
	calRound := 0
	for t := 0; t < steps; t++ {
		if err := r.s.ctx.Err(); err != nil {
			return err
		}
		if t%every == 0 {
			if l.UntilBudget && !r.canAffordRefresh() {
				r.s.progress.logf("loop %s: budget spent after %d steps", l.Name, t)
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
		r.s.n.step()
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Steps++ })
		r.s.progress.step(fmt.Sprintf("step %d", t+1))
		for calRound < len(cals) && cals[calRound].AfterStep == t+1 {
			err := r.calibrate(r.sc.in(cals[calRound].Name), calRound, cals[calRound])
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
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Resampled += len(extra) })
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
	if r.s.budget.CheckLLM() != nil {
		return false
	}
	// A refresh that cannot pay one real run under the GPU-hour and dollar
	// caps (less what later phases hold back) would only skip its runs.
	fits := false
	for _, t := range r.s.tasks.of("", l.Split) {
		if gpuh, usd := r.s.runCost(t.Env); r.s.budget.Fits(gpuh, usd) {
			fits = true
			break
		}
	}
	if !fits {
		return false
	}
	left := r.s.budget.RunsLeft()
	if left < 0 {
		return true
	}
	need := 1.0
	if c := l.RunsPerRefresh; c != nil {
		need = max(need, math.Ceil(c.Low-1e-9))
	}
	return float64(left-r.sc.floor) >= need
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
	train := r.s.tasks.of("", l.Split)
	if len(train) == 0 {
		return nil, fmt.Errorf("loop %s: no %s tasks", l.Name, l.Split)
	}
	// Each state's task is drawn from its environment's tasks, with the
	// states spread over environments as the plan counts them (older plans
	// without the spread draw from every task).
	pools := make([][]*taskInfo, states)
	if len(r.body.States) > 0 {
		s := 0
		for _, e := range r.s.v.Envs {
			ts := r.s.tasks.of(e.Name, l.Split)
			for n := 0; n < r.body.States[e.Name] && s < states; n++ {
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
		t := pool[rng(r.s.v.Seed, fmt.Sprintf("%s/%s/s%d/task", l.Name, tag, s)).IntN(len(pool))]
		gr := &group{State: fmt.Sprintf("%s/%s/s%d", l.Name, tag, s), Task: t, TaskKey: t.Env + "/" + t.Name, Cands: make([]candidate, G), Parent: seedParent()}
		if tp := r.parents[gr.TaskKey]; tp != nil {
			gr.Parent, gr.ParentGain = tp.p, tp.gain
			gr.parentCand, gr.parentUnmeasured = tp.cand, tp.unmeasured
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
	err := parallel(len(all), r.s.concurrency(l.Proposer), func(i int) error {
		gr, g := groups[all[i].s], all[i].g
		p, st, ok, err := r.s.propose(l.Proposer, fmt.Sprintf("%s/%d/propose", gr.State, g), gr.Task, gr.State, parentArg(gr.Parent))
		gr.Cands[g].Proposal, gr.Cands[g].sample = p, st
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
		r.s.n.candidate(len(gr.Cands))
		r.s.measured.loop(l.Name, func(m *MeasuredLoop) { m.Candidates += len(gr.Cands) })
		if err := r.s.j.Append(journal.KindReward, gr.State, gr); err != nil {
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
		r.s.records.add(true, real...)
		r.s.records.add(false, predicted...)
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
		p.Commit = parent.Commit // in source mode, the idea changes the parent's program
		return p
	}
	return merge(parent, p)
}

// priorProposals are the proposals a candidate for task t repeats: the
// task's records in the world model's context and in the history its
// proposer is shown.
func (r *rlLoop) priorProposals(t *taskInfo) map[string]bool {
	out := map[string]bool{}
	r.s.records.eachInContext(t, func(rec *record) { out[proposalKey(rec.Proposal)] = true })
	for _, rec := range r.s.records.history(t) {
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
	i := rng(r.s.v.Seed, gr.State+"/new_parent").IntN(len(gr.Cands))
	c := gr.Cands[i]
	tp := &taskParent{p: clone(c.Proposal), gain: gr.ParentGain, unmeasured: true}
	if c.HasReal {
		tp.gain, tp.cand, tp.unmeasured = c.RealGain, fmt.Sprintf("%s/%d", gr.State, i), false
	}
	r.parents[gr.TaskKey] = tp
	gr.NewParent = i + 1
}
