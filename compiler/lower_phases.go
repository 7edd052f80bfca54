package compiler

import (
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// phaseLowering is the state that lowering the phases of one variant
// shares. Each plan phase kind has its own file and functions, mirroring
// the runtime's phase types: baselines (lower_baselines.go), seed records
// (lower_seed.go), RL with its calibration rounds (lower_rl.go), evolution
// (lower_evolution.go) and evaluation (lower_evaluation.go).
type phaseLowering struct {
	lv *lowering
	// raws are the phases made so far, in plan order.
	raws []*rawPhase
	// fixed is the real runs outside a loop that spends the budget, per
	// scenario: baselines, seed records, evaluation, evolution, fixed-step
	// RL loops and their calibration. The budget loop gets the rest.
	fixed vec
	// fixedRepairs is what repairs of candidates' runs can add to the
	// fixed runs of the phases that run before the loop that spends the
	// budget, per scenario (at scHigh only: lower_repairs.go); a later
	// phase's repairs cannot take that loop's runs.
	fixedRepairs vec
	loops        map[string]*loopPlan
	budgetLoop   *loopPlan
	// calRuns is the real runs of each calibration round, in order.
	calRuns []int
}

// loopKind lowers one kind of loop; loopKinds holds one row per kind.
type loopKind struct {
	// settle computes the loop's figures per scenario before the budget
	// is solved; a loop that does not spend the budget adds its real runs
	// to the fixed runs.
	settle func(*phaseLowering, *loopPlan)
	// fields sets the plan.Loop fields only this kind has.
	fields func(*phaseLowering, *loopPlan, *plan.Loop)
	// phases adds the loop's phases, once its steps are known.
	phases func(*phaseLowering, *loopPlan)
}

// loopKinds lowers each loop by its kind; adding a loop kind is one row.
var loopKinds = map[string]loopKind{
	"rl":        {settle: settleRL, fields: rlLoopFields, phases: rlPhases},
	"evolution": {settle: settleEvolution, fields: evolutionLoopFields, phases: evolutionPhase},
}

// phases computes the loops and phases of a variant. The phases come in
// the order the runtime runs them: baselines (every gain is measured
// against them, and they come out of the real-run budget first), seed
// records, each loop's phases, and the evaluation.
func (lv *lowering) phases() ([]*plan.Loop, []*plan.Phase) {
	pl := &phaseLowering{lv: lv, loops: map[string]*loopPlan{}, calRuns: calibrationRuns(lv.s.Calibration)}
	baselines := pl.baselines()
	pl.seedRecords()
	pl.criticTrainings()
	pl.criticEvals()
	pl.startFixed(baselines)
	for _, l := range lv.s.Loops {
		lp := &loopPlan{l: l}
		pl.loops[l.Name] = lp
		if k := loopKinds[l.Kind.V]; k.settle != nil {
			k.settle(pl, lp)
		}
	}
	pl.calibrationFixed()
	pl.solveBudget()
	var loops []*plan.Loop
	for _, l := range lv.s.Loops {
		lp := pl.loops[l.Name]
		loops = append(loops, pl.loop(lp))
		if k := loopKinds[l.Kind.V]; k.phases != nil {
			k.phases(pl, lp)
		}
	}
	pl.evaluation()
	phases := pl.finish()
	continualCalls(phases)
	lv.criteriaCalls(phases)
	return loops, phases
}

// newPhase adds a phase, after those made so far; its lowering sets its
// body.
func (pl *phaseLowering) newPhase(name, kind string, src diag.Range) *rawPhase {
	r := &rawPhase{ph: &plan.Phase{Name: name, Kind: kind, Source: src}, runs: map[string]*vec{}, llm: map[string]*vec{}}
	pl.raws = append(pl.raws, r)
	return r
}

// newRound adds a calibration round of RL phase rl: counted as a phase
// is, after those made so far, its counts going to the round in rl's body
// rather than to a phase of its own.
func (pl *phaseLowering) newRound(rl *plan.Phase, round *plan.CalibrationRound) *rawPhase {
	r := &rawPhase{ph: &plan.Phase{Name: round.Name, Source: round.Source}, round: round, runs: map[string]*vec{}, llm: map[string]*vec{}}
	rl.RL.Calibration.Rounds = append(rl.RL.Calibration.Rounds, round)
	pl.raws = append(pl.raws, r)
	return r
}

// forScen calls f for every scenario.
func forScen(f func(sc int)) {
	for sc := 0; sc < nScenarios; sc++ {
		f(sc)
	}
}

// startFixed starts the fixed real runs with those of the phases outside
// loops: baselines, the seed records that build and the evaluation's
// candidates that build.
func (pl *phaseLowering) startFixed(baselines int) {
	lv, s := pl.lv, pl.lv.s
	seed, eval := seedRuns(s), evaluationRuns(s)
	seedOK, evalOK := lv.built(spec.Ref{}), lv.built(spec.Ref{})
	if s.Records != nil {
		seedOK = lv.built(s.Records.Builder)
	}
	if s.Evaluation != nil {
		evalOK = lv.built(s.Evaluation.Builder)
	}
	var seedBy spec.Ref
	if s.Records != nil {
		seedBy = s.Records.Builder
	}
	forScen(func(sc int) {
		pl.fixed[sc] = float64(baselines) + float64(seed)*seedOK[sc] + float64(eval)*evalOK[sc]
		pl.fixedRepairs[sc] = float64(seed) * seedOK[sc] * (lv.repairHigh(seedBy, sc) - 1)
	})
}

// loop lowers the fields of a loop that every kind shares, then the
// kind's own.
func (pl *phaseLowering) loop(lp *loopPlan) *plan.Loop {
	l := lp.l
	steps := lp.steps.count()
	if lp.unbounded != "" {
		steps = plan.Unbounded(steps.Low, steps.Expected, lp.unbounded)
	}
	out := &plan.Loop{Name: l.Name, Kind: l.Kind.V, Algorithm: l.Algorithm.V, Steps: steps, UntilBudget: l.UntilBudget.V, MaxSteps: l.MaxSteps.V,
		StatesPerStep: l.StatesPerStep.V, ProposalsPerState: l.ProposalsPerState.V, RolloutEvery: l.RolloutEvery.V,
		ZeroVariance: l.ZeroVariance.V, ResampleRounds: resampleRounds(l), Reward: l.Reward.Name, Screen: l.Screen.Name, LearningRate: l.LearningRate.V,
		Proposer: l.Proposer.Name, Builder: l.Builder.Name, Summarizer: l.Summarizer.Name,
		Islands: l.Islands.V, Rounds: l.Rounds.V, MigrationEvery: l.MigrationEvery.V, Ideas: ideasPerRound(l),
		Verifications: l.Verifications.V, Select: l.Select.V, Split: l.Split.V, Source: l.NameRange}
	if l.Builder.Set {
		out.Repairs = l.Repairs.V
	}
	if cr := pl.lv.judge(l); cr != nil {
		out.Critic = cr.Name
		out.Routes = routesWith(l) && critRoutes(cr)
	}
	if l.AuditShare.Set && auditable(pl.lv.x, l) {
		out.AuditShare = l.AuditShare.V
	}
	if k := loopKinds[l.Kind.V]; k.fields != nil {
		k.fields(pl, lp, out)
	}
	return out
}

// finish turns the phases' per-scenario figures into the plan's counts.
func (pl *phaseLowering) finish() []*plan.Phase {
	var phases []*plan.Phase
	for _, r := range pl.raws {
		ph := r.ph
		ph.Calls.Candidates = r.count(r.cand)
		if len(r.runs) > 0 {
			ph.Calls.RealRuns = map[string]plan.Count{}
			for k, v := range r.runs {
				ph.Calls.RealRuns[k] = pl.realRuns(r, k, v)
			}
		}
		if r.repairRuns > 0 {
			if pl.lv.repairRuns == nil {
				pl.lv.repairRuns = map[string]float64{}
			}
			pl.lv.repairRuns[ph.Name] = r.repairRuns
		}
		if len(r.llm) > 0 {
			ph.Calls.LLM = map[string]plan.Count{}
			for k, v := range r.llm {
				c := r.count(*v)
				if h := r.llmHigh[k]; h != nil {
					c.High = math.Max(c.High, r.count(*h).High)
				}
				ph.Calls.LLM[k] = c
			}
		}
		if ph.RL != nil {
			ph.RL.Steps, ph.RL.Refreshes = r.steps.count(), r.refreshes.count()
		}
		if r.round != nil {
			r.round.Calls = ph.Calls // a round runs inside its RL phase
			continue
		}
		phases = append(phases, ph)
	}
	return phases
}

// realRuns is the count of a phase's real runs on environment env.
func (pl *phaseLowering) realRuns(r *rawPhase, env string, v *vec) plan.Count {
	s := pl.lv.s
	c := r.count(*v)
	if r.untilBudget {
		// The loop spends its room; at the end it may stop one
		// refresh short, when the next one does not fit.
		c.Low = math.Max(c.Low, v.count().Low-r.maxPerRefresh(*v))
	}
	if lo := r.runsLo[env]; lo != nil {
		c.Low, c.High = math.Min(c.Low, r.count(*lo).Low), math.Max(c.High, r.count(*r.runsHi[env]).High)
	}
	// Repairs of candidates' runs raise the high (lower_repairs.go); the
	// cap bounds the loop's runs whatever the shares and repairs: what
	// the other phases make at least is not the loop's.
	var extra float64
	c.High, extra = r.withRepairs(env, c.High)
	if r.untilBudget && s.Budget != nil && s.Budget.RealRuns.V > 0 {
		c = c.CapHigh(math.Max(c.Low, float64(s.Budget.RealRuns.V)-othersLow(pl.raws, r)))
	}
	r.repairRuns += extra
	return c
}
