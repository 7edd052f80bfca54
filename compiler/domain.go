package compiler

import (
	"fmt"
	"slices"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// domain runs the rules that come from the experiments themselves, per
// variant. Each reports at the offending value with a stable code.
func domain(c *compilation) {
	for _, v := range c.variants {
		if v.tooLarge {
			continue
		}
		k := &checker{c: c, s: v.spec, x: v.idx, v: v}
		k.domain()
	}
}

func (k *checker) domain() {
	for _, r := range k.s.Rewards {
		k.rewardDomain(r)
	}
	for _, cr := range k.s.Critics {
		k.criticDomain(cr)
	}
	for _, r := range k.s.Roles {
		k.roleDomain(r)
	}
	k.loopsDomain()
	k.tasksDomain()
	k.pricesDomain()
	for _, l := range k.s.Loops {
		k.updateDomain(l)
	}
	k.updaterOnly()
	k.criticTrainings()
	k.continuals()
	k.evaluationScales()
	k.iclRecords()
	k.calibrationDomain()
	k.budgetFit()
	k.rolesPriced()
}

func (k *checker) rewardDomain(r *spec.Reward) {
	if r.Clip.Set && r.Clip.V <= 0 {
		k.add(diag.Errorf(CodeClip, r.Clip.Range, "clip c must be greater than 0, got %g", r.Clip.V).
			WithDetail("normalised gain is clipped to [-c, c]; LM2LM uses clip = 6"))
	}
	if r.Source.V == "predicted" && r.Predictor.Set && r.Predictor.Kind == "role" {
		if role := k.x.roles[r.Predictor.Name]; role != nil && role.Kind.Set && role.Kind.V != "rwm" {
			k.add(diag.Errorf(CodePredictorRole, r.Predictor.Range, "predictor of a predicted reward must be a role of kind rwm; role %q is a %s", role.Name, role.Kind.V).
				WithDetail("point predictor at a role with kind = \"rwm\""))
		}
	}
}

func (k *checker) criticDomain(cr *spec.Critic) {
	if cr.Votes.Set && cr.Votes.V < 1 {
		k.add(diag.Errorf(CodeVotes, cr.Votes.Range, "votes k must be at least 1, got %d", cr.Votes.V))
	}
	if cr.Threshold.Set && (cr.Threshold.V < 0 || cr.Threshold.V >= 1) {
		k.add(diag.Errorf(CodeThreshold, cr.Threshold.Range, "threshold must lie in [0, 1), got %g", cr.Threshold.V).
			WithDetail("uncertainty is 1 - the winning label's vote share; the papers use 0.25"))
	}
	if cr.Votes.Set && cr.Votes.V >= 2 && cr.Votes.V%2 == 0 && cr.Aggregate.V == "majority" && !cr.Tie.Set {
		k.add(diag.Errorf(CodeTieRule, cr.Votes.Range, "critic %q: %d votes with majority aggregation can tie, and no tie rule is declared", cr.Name, cr.Votes.V).
			WithDetail("write tie = \"route\" (or \"lose\", \"tie\"), or use an odd number of votes"))
	}
	if cr.Role.Set && cr.Role.Kind == "role" {
		if role := k.x.roles[cr.Role.Name]; role != nil && role.Kind.Set && role.Kind.V != "critic" {
			k.add(diag.Errorf(CodeScreenRole, cr.Role.Range, "critic %q samples role %q, which is a %s, not a critic", cr.Name, role.Name, role.Kind.V).
				WithDetail("point role at a role with kind = \"critic\""))
		}
	}
	// A critic that routes in a screened RL loop sends some candidates
	// to real runs, so an expected 0 is refused there; elsewhere
	// expected_routed = 0 says the critic routes nothing (the
	// critic-only ablation). A low of 0 is allowed: it says the run may
	// route nothing, and the estimate then bounds what it can.
	if er := cr.ExpectedRouted; er.Set {
		if er.V.Low < 0 || er.V.High > 1 || (er.V.Expected == 0 && k.screensRL(cr.Name) && critRoutes(cr)) {
			k.add(diag.Errorf(CodeExpectedRouted, er.Range, "expected_routed must lie in [0, 1] (its expected figure above 0 for a critic that routes), got %s", spreadText(er.V)))
		} else {
			k.spread(er, 0, 1, false, "expected_routed")
		}
	}
}

func (k *checker) roleDomain(r *spec.Role) {
	builder := slices.Contains(builderKinds, r.Kind.V)
	if r.BuildFailures.Set && !builder {
		k.add(diag.Errorf(CodeNotApplicable, r.BuildFailures.Range, "build_failures applies to builder roles; role %q is a %s", r.Name, r.Kind.V).
			WithDetail("remove build_failures, or set it on the role that builds proposals"))
	}
	if bf := r.BuildFailures; bf.Set && k.spread(bf, 0, 1, false, "build_failures") && bf.V.Expected >= 1 {
		k.add(diag.Errorf(CodeRange, bf.Range, "build_failures must lie in [0, 1) (its expected figure below 1: some builds succeed), got %s", spreadText(bf.V)))
	}
}

// spreadText renders an assumed figure as the spec wrote it.
func spreadText(sp spec.Spread) string {
	if !sp.Ranged {
		return fmt.Sprintf("%g", sp.Expected)
	}
	return fmt.Sprintf("{ low = %g, expected = %g, high = %g }", sp.Low, sp.Expected, sp.High)
}

func (k *checker) loopsDomain() {
	s := k.s
	var untilBudget []*spec.Loop
	for _, l := range s.Loops {
		k.loopScreen(l)
		k.loopKindDomain(l)
		if l.Kind.V == "rl" && l.UntilBudget.V {
			untilBudget = append(untilBudget, l)
			k.untilBudget(l)
		}
		if l.Kind.Set && l.Split.V != "" && countSplit(s, l.Split.V) == 0 && len(s.Environments) > 0 {
			k.add(diag.Errorf(CodeRange, k.at(l.Split.Range, l.NameRange), "loop %q runs on %s tasks, and no environment has any", l.Name, l.Split.V))
		}
	}
	for _, l := range untilBudget[min(1, len(untilBudget)):] {
		k.add(diag.Errorf(CodeUntilBudget, l.UntilBudget.Range, "only one loop may spend the budget with until_budget = true; %q is the second", l.Name))
	}
	k.executorGPUs()
	if ev := s.Evaluation; ev != nil && countSplit(s, ev.Split.V) == 0 && len(s.Environments) > 0 {
		k.add(diag.Errorf(CodeRange, k.at(ev.Split.Range, ev.Range), "evaluation runs on %s tasks, and no environment has any", ev.Split.V))
	}
}

// loopScreen checks a screened loop's critic against its reward.
func (k *checker) loopScreen(l *spec.Loop) {
	if !l.Screen.Set {
		return
	}
	cr := k.x.critics[l.Screen.Name]
	if cr == nil || !routesWith(l) {
		return
	}
	rw := k.x.rewards[l.Reward.Name]
	if l.Kind.V == "rl" && rw != nil && rw.Source.V == "predicted" {
		k.add(diag.Errorf(CodeConflict, l.Screen.Range, "a screen routes candidates to real runs, but reward %q takes its gain from a world model's prediction", rw.Name).
			WithDetail("set the reward's source = \"real\" (or \"critic\"), or remove screen"))
	} else if !cr.ExpectedRouted.Set && critRoutes(cr) {
		k.add(diag.Errorf(CodeMissing, k.at(cr.NameRange, cr.Range), "critic %q screens loop %q but has no expected_routed", cr.Name, l.Name).
			WithDetail("write expected_routed = 0.363 (the share of candidates routed to a real run), for the estimate"))
	}
}

// loopKindDomain checks what an RL loop and an evolution loop each need.
func (k *checker) loopKindDomain(l *spec.Loop) {
	if l.Kind.V == "rl" && !(l.LearningRate.Set && l.LearningRate.V > 0) {
		at := l.LearningRate.Range
		if !l.LearningRate.Set {
			at = k.at(l.NameRange, l.Range)
		}
		k.add(diag.Errorf(CodeMissing, at, "loop %q trains its proposer policy, and has no learning_rate above 0", l.Name).
			WithDetail("write learning_rate = 0.5 (the offline proposer), or the rate your RL trainer takes"))
	}
	if l.Kind.V == "evolution" && !l.Screen.Set && l.Select.V != "random" {
		k.add(diag.Errorf(CodeConflict, k.at(l.Select.Range, l.NameRange), "select = %q ranks ideas by a critic's verdict, and loop %q screens with no critic", l.Select.V, l.Name).
			WithDetail("write select = \"random\" (verify ideas without a critic), or screen = critic.NAME"))
	}
}

// untilBudget checks an RL loop that spends the budget: there is a budget
// of real runs, and the loop makes real runs.
func (k *checker) untilBudget(l *spec.Loop) {
	s, x := k.s, k.x
	if s.Budget == nil || !s.Budget.RealRuns.Set {
		k.add(diag.Errorf(CodeUntilBudget, l.UntilBudget.Range, "until_budget = true needs budget.real_runs").
			WithDetail("write budget { real_runs = 10000 }, or give steps instead"))
	}
	if rw := x.rewards[l.Reward.Name]; rw != nil && (rw.Source.V == "predicted" || (rw.Source.V == "critic" && !(l.Screen.Set && critRoutes(x.critics[l.Screen.Name])))) {
		k.add(diag.Errorf(CodeUntilBudget, l.UntilBudget.Range, "until_budget = true spends real runs, but loop %q with reward %q (source %q) makes none", l.Name, rw.Name, rw.Source.V).
			WithDetail("give steps instead, or screen candidates with a critic that routes some to real runs"))
	}
}

// executorGPUs checks that one run of every environment fits the executor.
func (k *checker) executorGPUs() {
	ex := k.s.Executor
	if ex == nil {
		return
	}
	for _, e := range k.s.Environments {
		if e.RunCost == nil || !e.RunCost.GPUs.Set || e.RunCost.GPUs.V <= ex.GPUs.V {
			continue
		}
		switch {
		case ex.GPUs.Set:
			k.add(diag.Errorf(CodeExecutorGPUs, ex.GPUs.Range, "executor has %d GPUs, but one run of environment %q needs %d", ex.GPUs.V, e.Name, e.RunCost.GPUs.V))
		case ex.Kind.V == "local" && k.commandTrainer(e.Trainer.Name):
			// The command trainer's local executor hands out only the
			// GPUs executor.gpus declares: it would refuse every run.
			k.add(diag.Errorf(CodeExecutorGPUs, e.RunCost.GPUs.Range, "one run of environment %q needs %d GPUs, and the local executor declares none", e.Name, e.RunCost.GPUs.V).
				WithDetail("set executor { gpus = %d } (the local executor hands out only the GPUs it declares), or run_cost.gpus = 0 for a run that needs no GPU", e.RunCost.GPUs.V))
		}
	}
}

// countSplit counts the tasks of split over all environments.
func countSplit(s *spec.Spec, split string) int {
	n := 0
	for _, e := range s.Environments {
		n += envTaskCount(e, split)
	}
	return n
}

// envTaskCount is len(envTasks(e, split)) without listing the tasks: counts
// are checked against MaxTasks before anything lists them.
func envTaskCount(e *spec.Environment, split string) int {
	if len(e.TaskList) > 0 {
		n := 0
		for _, t := range e.TaskList {
			if split == "" || t.Split.V == split {
				n++
			}
		}
		return n
	}
	if e.Tasks == nil {
		return 0
	}
	n := 0
	if split == "" || split == "train" {
		n += max(e.Tasks.Train.V, 0)
	}
	if split == "" || split == "holdout" {
		n += max(e.Tasks.Holdout.V, 0)
	}
	return n
}

// envTasks lists an environment's task names of split (all splits when
// split is ""), naming counted tasks "train-01", "holdout-01", ...
func envTasks(e *spec.Environment, split string) []*spec.Task {
	var out []*spec.Task
	if len(e.TaskList) > 0 {
		for _, t := range e.TaskList {
			if split == "" || t.Split.V == split {
				out = append(out, t)
			}
		}
		return out
	}
	if e.Tasks == nil {
		return nil
	}
	gen := func(sp string, n int) {
		for i := 1; i <= n; i++ {
			out = append(out, &spec.Task{Name: countedName(sp, i), Split: spec.Val[string]{V: sp, Set: true}, Range: e.Tasks.Range, NameRange: e.Tasks.Range})
		}
	}
	if split == "" || split == "train" {
		gen("train", e.Tasks.Train.V)
	}
	if split == "" || split == "holdout" {
		gen("holdout", e.Tasks.Holdout.V)
	}
	return out
}

// firstCounted names the first counted task of split of an environment
// whose tasks are counted, not listed, as envTasks would name it; "" when it
// has none.
func firstCounted(e *spec.Environment, split string) string {
	for _, sp := range []string{"train", "holdout"} {
		if split == "" || split == sp {
			if envTaskCount(e, sp) > 0 {
				return countedName(sp, 1)
			}
		}
	}
	return ""
}

// countedName is the name of the i-th counted task of split: "train-01".
func countedName(split string, i int) string { return fmt.Sprintf("%s-%02d", split, i) }

func (k *checker) tasksDomain() {
	s, x := k.s, k.x
	for _, e := range s.Environments {
		seen := map[string]*spec.Task{}
		for _, t := range e.TaskList {
			prev, ok := seen[t.Name]
			if !ok {
				seen[t.Name] = t
				continue
			}
			if prev.Split.V != t.Split.V {
				k.add(diag.Errorf(CodeSplitOverlap, k.at(t.NameRange, t.Range), "task %q of environment %q is listed in both the %s and the %s split", t.Name, e.Name, prev.Split.V, t.Split.V).
					WithDetail("train and holdout tasks must be disjoint; rename or remove one (first listed at %s)", prev.NameRange))
			} else {
				k.add(diag.Errorf(CodeDuplicate, k.at(t.NameRange, t.Range), "task %q of environment %q is listed twice", t.Name, e.Name))
			}
		}
	}
	// Scales are needed on the tasks an RL loop trains on when its reward
	// divides gain by the task's scale.
	for _, l := range s.Loops {
		if l.Kind.V != "rl" {
			continue
		}
		rw := x.rewards[l.Reward.Name]
		if rw == nil || rw.Normalize.V != "scale" || rw.Source.V == "critic" || !k.readsScale(rw) {
			continue
		}
		for _, e := range s.Environments {
			if e.Scale.Set || e.Benchmark.Set {
				continue
			}
			missing := func(task string, at diag.Range) {
				k.add(diag.Errorf(CodeScaleMissing, at, "task %q of environment %q has no reward scale, and reward %q normalises gain by scale", task, e.Name, rw.Name).
					WithDetail("write scale = N in the environment or the task, name a benchmark plugin that supplies it, or set normalize = \"none\" in reward %q", rw.Name))
			}
			if len(e.TaskList) == 0 {
				// Counted tasks have no scale of their own: one report per
				// environment, about its first task, without listing them.
				if name := firstCounted(e, l.Split.V); name != "" {
					missing(name, k.at(e.NameRange))
				}
				continue
			}
			for _, t := range e.TaskList {
				if (l.Split.V == "" || t.Split.V == l.Split.V) && !t.Scale.Set {
					missing(t.Name, k.at(t.NameRange, e.NameRange))
				}
			}
		}
	}
}

// iclRecords warns when the in-context arm asks for more records than the
// run can have: its real records before the evaluation are the seed runs
// and calibration runs, where no loop makes real runs of its own (those
// the warning does not try to bound).
func (k *checker) iclRecords() {
	s := k.s
	ev := s.Evaluation
	if ev == nil || !ev.ICL.Set || !ev.ICLRecords.Set {
		return
	}
	for _, l := range s.Loops {
		if rw := k.x.rewards[l.Reward.Name]; l.Kind.V != "rl" || rw == nil || rw.Source.V != "predicted" || l.Screen.Set {
			return
		}
	}
	n := seedRuns(s)
	for i, c := range calibrationRuns(s.Calibration) {
		if l := k.calLoop(); l == nil || l.UntilBudget.V || !l.Steps.Set || s.Calibration.AfterSteps.V[i] < l.Steps.V {
			n += c
		}
	}
	if ev.ICLRecords.V > n {
		k.add(diag.Warnf(CodeICLRecords, ev.ICLRecords.Range, "icl_records = %d, and the run makes at most %d real records before its evaluation (seed and calibration runs)", ev.ICLRecords.V, n).
			WithDetail("the in-context arm's prompts hold the records there are; lower icl_records to %d, or raise seed_runs", n))
	}
}

// unscaled lists the environments with a task of the split that has no
// scale: none declared (environment or task) and no benchmark to supply it.
func unscaled(s *spec.Spec, split string) []*spec.Environment {
	var out []*spec.Environment
	for _, e := range s.Environments {
		if e.Scale.Set || e.Benchmark.Set || envTaskCount(e, split) == 0 {
			continue
		}
		missing := len(e.TaskList) == 0
		for _, t := range e.TaskList {
			if t.Split.V == split && !t.Scale.Set {
				missing = true
			}
		}
		if missing {
			out = append(out, e)
		}
	}
	return out
}

// evaluatedScales reports whether every task the evaluation runs on has a
// scale, for the default of evaluation.normalize.
func evaluatedScales(s *spec.Spec) bool {
	return len(unscaled(s, splitOr(s.Evaluation.Split.V, "holdout"))) == 0
}

// evaluationScales: an evaluation that normalises gains by scale needs a
// scale on every task it evaluates.
func (k *checker) evaluationScales() {
	ev := k.s.Evaluation
	if ev == nil || ev.Normalize.V != "scale" {
		return
	}
	at := k.at(ev.Normalize.Range, ev.Range)
	for _, e := range unscaled(k.s, ev.Split.V) {
		k.add(diag.Errorf(CodeScaleMissing, at, "evaluation normalises gains by scale, and environment %q has %s tasks without a scale", e.Name, ev.Split.V).
			WithDetail("write scale = N in environment %q (or its tasks), name a benchmark plugin that supplies it, or set normalize = \"none\" in evaluation", e.Name))
	}
}

func (k *checker) pricesDomain() {
	s := k.s
	var prices map[string]float64
	var known []string
	if s.Prices != nil {
		prices = s.Prices.GPU.V
		known = sortedKeys(prices)
	}
	for _, e := range s.Environments {
		if e.RunCost == nil || !e.RunCost.GPU.Set || e.RunCost.GPUs.Set && e.RunCost.GPUs.V == 0 {
			continue // a run on no GPU costs no GPU-hour, whatever its type
		}
		g := e.RunCost.GPU
		if _, ok := prices[g.V]; ok {
			continue
		}
		k.add(diag.Errorf(CodePriceMissing, g.Range, "GPU type %q of environment %q has no price", g.V, e.Name).
			WithDetail("%s", priceHint(g.V, known, "a real run")))
	}
}

// calLoopSteps returns the calibrated loop's steps when given.
func (k *checker) calLoop() *spec.Loop {
	cal := k.s.Calibration
	if cal == nil || !cal.Loop.Set {
		return nil
	}
	return k.x.loops[cal.Loop.Name]
}

func (k *checker) calibrationDomain() {
	cal := k.s.Calibration
	if cal == nil {
		return
	}
	l := k.calLoop()
	if l != nil {
		if rw := k.x.rewards[l.Reward.Name]; rw != nil && rw.Source.Set && rw.Source.V != "predicted" {
			k.add(diag.Errorf(CodeCalLoop, k.at(cal.Loop.Range, cal.Range), "calibration keeps a world model honest, but loop %q has reward %q with source %q", l.Name, rw.Name, rw.Source.V).
				WithDetail("calibrate a loop whose reward source is \"predicted\", or remove the calibration block"))
		}
	}
	as := cal.AfterSteps
	for i, st := range as.V {
		if st < 1 {
			k.add(diag.Errorf(CodeCalSteps, as.Range, "calibration after_steps[%d] = %d; steps start at 1", i, st))
		}
		if i > 0 && st <= as.V[i-1] {
			k.add(diag.Errorf(CodeCalSteps, as.Range, "calibration after_steps must be strictly increasing: %d follows %d", st, as.V[i-1]).
				WithDetail("list each step once, in order, e.g. [16, 40, 64]"))
		}
		if l != nil && l.RolloutEvery.V > 1 && st >= 1 && st%l.RolloutEvery.V != 0 {
			every := l.RolloutEvery.V
			prev := st / every * every
			k.add(diag.Warnf(CodeCalMidRollout, as.Range, "calibration after step %d falls between rollout refreshes of loop %q (every %d steps): it runs proposals of the rollout made at step %d, and its records reach rewards only at the refresh after step %d",
				st, l.Name, every, prev, prev+every).
				WithDetail("calibrate after a multiple of rollout_every (%d or %d), as LM2LM does (rollout_every = 8, after_steps = [16, 40, 64])", prev, prev+every))
		}
		if l != nil && l.Steps.Set && !l.UntilBudget.V && st >= l.Steps.V {
			k.add(diag.Errorf(CodeCalSteps, as.Range, "calibration after_steps[%d] = %d is not before the last step of loop %q (%d steps)", i, st, l.Name, l.Steps.V).
				WithDetail("every calibration step must lie in [1, %d)", l.Steps.V))
		}
	}
	if as.Set && cal.Budget.Set && len(cal.Budget.V) != 1 && len(cal.Budget.V) != len(as.V) {
		k.add(diag.Errorf(CodeCalBudget, cal.Budget.Range, "calibration budget has %d entries for %d after_steps", len(cal.Budget.V), len(as.V)).
			WithDetail("give one number for every round, or one per after_steps entry"))
	}
	if cal.Budget.Set && len(cal.Budget.V) == 0 {
		k.add(diag.Errorf(CodeCalBudget, cal.Budget.Range, "calibration budget is empty").WithDetail("write budget = [31, 35, 34] or budget = [30]"))
	}
}

// calibrationRuns is the real runs of every calibration round, in order.
func calibrationRuns(cal *spec.Calibration) []int {
	if cal == nil {
		return nil
	}
	out := make([]int, len(cal.AfterSteps.V))
	for i := range out {
		switch {
		case len(cal.Budget.V) == 1:
			out[i] = cal.Budget.V[0]
		case i < len(cal.Budget.V):
			out[i] = cal.Budget.V[i]
		}
	}
	return out
}

// evaluationRuns is the real runs of the evaluation phase: per task, per
// state and per arm, max(avg_at, best_at) proposals.
func evaluationRuns(s *spec.Spec) int {
	ev := s.Evaluation
	if ev == nil {
		return 0
	}
	return countSplit(s, ev.Split.V) * evalPerTask(ev)
}

// evalPerTask is the proposals the evaluation makes per task, over its
// states and arms.
func evalPerTask(ev *spec.Evaluation) int {
	return max(ev.States.V, 1) * len(evalArms(ev)) * max(ev.AvgAt.V, ev.BestAt.V)
}

// evalArms lists the arms of an evaluation, the evaluated policy first.
func evalArms(ev *spec.Evaluation) []plan.EvalArm {
	arms := []plan.EvalArm{{Name: plan.ArmPolicy, Proposer: ev.Proposer.Name}}
	if ev.Base.Set {
		arms = append(arms, plan.EvalArm{Name: plan.ArmBase, Proposer: ev.Base.Name, Untrained: true})
	}
	if ev.ICL.Set {
		arms = append(arms, plan.EvalArm{Name: plan.ArmICL, Proposer: ev.ICL.Name, Untrained: true, Records: ev.ICLRecords.V})
	}
	return arms
}

func seedRuns(s *spec.Spec) int {
	if s.Records == nil {
		return 0
	}
	return s.Records.SeedRuns.V
}

func (k *checker) budgetFit() {
	s := k.s
	if s.Budget == nil || !s.Budget.RealRuns.Set {
		return
	}
	seed, eval := seedRuns(s), evaluationRuns(s)
	cal := 0
	l := k.calLoop()
	for i, n := range calibrationRuns(s.Calibration) {
		// Rounds after the last step never run.
		if l != nil && l.Steps.Set && !l.UntilBudget.V && s.Calibration.AfterSteps.V[i] >= l.Steps.V {
			continue
		}
		cal += n
	}
	base := baselineCount(s, k.x)
	if total := base + seed + cal + eval; total > s.Budget.RealRuns.V {
		k.add(diag.Errorf(CodeBudgetFit, s.Budget.RealRuns.Range, "budget.real_runs = %d is less than the fixed real runs: %d (baselines %d + seed %d + calibration %d + evaluation %d)", s.Budget.RealRuns.V, total, base, seed, cal, eval).
			WithDetail("raise budget.real_runs by %d, or lower seed_runs, calibration budget or evaluation, or declare the tasks' baselines", total-s.Budget.RealRuns.V))
	}
}

// rolesPriced warns about roles that are called but have no token counts or
// prices: their dollars cannot be estimated, and saying so beats $0.
func (k *checker) rolesPriced() {
	for _, r := range k.s.Roles {
		if r.Tokens == nil || r.Price == nil || !(r.Tokens.In.Set || r.Tokens.Out.Set) || !(r.Price.In.Set || r.Price.Out.Set) {
			k.add(diag.Warnf(CodeLLMUnpriced, k.at(r.NameRange, r.Range), "role %q has no tokens or price, so its LLM dollars are not estimated", r.Name).
				WithDetail("add tokens { in = 4000  out = 800 } and price { in = 0.5  out = 2 } ($ per million tokens)"))
		}
	}
}

// commandTrainer reports whether the plugin named name is builtin:command.
func (k *checker) commandTrainer(name string) bool {
	p := k.x.plugins[name]
	return p != nil && p.Source.V == "builtin:command"
}
