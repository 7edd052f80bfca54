package compiler

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// checker checks one variant's spec.
type checker struct {
	c *compilation
	s *spec.Spec
	x *index
	// v is the variant checked, nil for checks of the unswept spec.
	v *variant
}

// add reports d; a field that takes no effect in this variant is held back
// until every variant is checked (see settleIgnored).
func (k *checker) add(d *diag.Diagnostic) {
	if !k.c.ignore(k.v, d) {
		k.c.add(d)
	}
}

// at picks the first valid range, so a diagnostic about a block without a
// range of its own (one a default created) still points somewhere.
func (k *checker) at(rs ...diag.Range) diag.Range {
	for _, r := range rs {
		if r.Valid() {
			return r
		}
	}
	return k.s.Range
}

// need reports a missing required field: where its block is, and what to write.
func (k *checker) need(set bool, at diag.Range, what, write string) bool {
	if !set {
		k.add(diag.Errorf(CodeMissing, at, "%s is missing", what).WithDetail("write %s", write))
	}
	return set
}

func (k *checker) intMin(v spec.Val[int], min int, what string) {
	if v.Set && v.V < min {
		k.add(diag.Errorf(CodeRange, v.Range, "%s must be at least %d, got %d", what, min, v.V))
	}
}

func (k *checker) numMin(v spec.Val[float64], min float64, strict bool, what string) {
	if !v.Set {
		return
	}
	if strict && v.V <= min {
		k.add(diag.Errorf(CodeRange, v.Range, "%s must be greater than %g, got %g", what, min, v.V))
	} else if !strict && v.V < min {
		k.add(diag.Errorf(CodeRange, v.Range, "%s must be at least %g, got %g", what, min, v.V))
	}
}

// spread checks an assumed figure: its low, expected and high in order,
// each at least min (greater, when strict) and at most max. It reports
// whether the figure is good.
func (k *checker) spread(v spec.Val[spec.Spread], min, max float64, strict bool, what string) bool {
	if !v.Set {
		return true
	}
	sp := v.V
	if sp.Low > sp.Expected || sp.Expected > sp.High {
		k.add(diag.Errorf(CodeRange, v.Range, "%s must satisfy low <= expected <= high, got low = %g, expected = %g, high = %g", what, sp.Low, sp.Expected, sp.High).
			WithDetail("order the three figures, or give one number"))
		return false
	}
	name := func(which string) string {
		if sp.Ranged {
			return what + " (" + which + ")"
		}
		return what
	}
	switch {
	case strict && sp.Low <= min:
		k.add(diag.Errorf(CodeRange, v.Range, "%s must be greater than %g, got %g", name("low"), min, sp.Low))
	case !strict && sp.Low < min:
		k.add(diag.Errorf(CodeRange, v.Range, "%s must be at least %g, got %g", name("low"), min, sp.Low))
	case sp.High > max:
		k.add(diag.Errorf(CodeRange, v.Range, "%s must be at most %g, got %g", name("high"), max, sp.High))
	default:
		return true
	}
	return false
}

func check(c *compilation) {
	checkNames(c)
	for _, v := range c.variants {
		k := &checker{c: c, s: v.spec, x: v.idx, v: v}
		k.enums()
		k.fields()
		k.criticEvals()
		k.sources()
		k.freeTextProposers()
	}
}

// enums checks every enum-typed string against the schema, generically, so
// a new enum field is checked without code here.
func (k *checker) enums() {
	walkAttrs(reflect.ValueOf(k.s).Elem(), spec.Describe(), "", func(path string, f *spec.Field, fv reflect.Value) {
		if len(f.Enum) == 0 || f.Type != "string" {
			return
		}
		val := fv.Interface().(spec.Val[string])
		if !val.Set {
			return
		}
		for _, e := range f.Enum {
			if e == val.V {
				return
			}
		}
		d := diag.Errorf(CodeEnum, val.Range, "%s must be one of %q, got %q", path, f.Enum, val.V)
		if h := diag.DidYouMean(val.V, f.Enum); h != "" {
			d.WithDetail("%s", h)
		}
		k.add(d)
	})
}

// walkAttrs calls fn for every attribute of block value v (a struct).
func walkAttrs(v reflect.Value, b *spec.BlockSchema, prefix string, fn func(string, *spec.Field, reflect.Value)) {
	for _, f := range b.Fields {
		fv := spec.FieldValue(v, f)
		path := f.Name
		if prefix != "" {
			path = prefix + "." + f.Name
		}
		switch f.Kind {
		case spec.Attr:
			fn(path, f, fv)
		case spec.Block:
			if !fv.IsNil() {
				walkAttrs(fv.Elem(), f.Block, path, fn)
			}
		case spec.Blocks:
			for i := 0; i < fv.Len(); i++ {
				e := fv.Index(i).Elem()
				walkAttrs(e, f.Block, path+"."+e.FieldByName("Name").String(), fn)
			}
		}
	}
}

// fields checks required fields and plain ranges, block kind by block
// kind.
func (k *checker) fields() {
	s := k.s
	k.intMin(s.Seed, 0, "seed")
	for _, p := range s.Plugins {
		at := k.at(p.NameRange)
		k.need(p.Kind.Set, at, fmt.Sprintf("plugin %q: kind", p.Name), `kind = "trainer" (or "llm", "benchmark")`)
		k.need(p.Source.Set, at, fmt.Sprintf("plugin %q: source", p.Name), `source = "builtin:NAME" or a path to the plugin executable`)
	}
	if s.Prices != nil && s.Prices.GPU.Set {
		for _, g := range sortedKeys(s.Prices.GPU.V) {
			if s.Prices.GPU.V[g] < 0 {
				k.add(diag.Errorf(CodeRange, k.at(s.Prices.GPU.Range, s.Prices.Range), "price of GPU %q must not be negative, got %g", g, s.Prices.GPU.V[g]))
			}
		}
	}
	for _, e := range s.Environments {
		k.environment(e)
	}
	for _, r := range s.Roles {
		k.roleFields(r)
	}
	for _, r := range s.Rewards {
		k.rewardFields(r)
	}
	for _, cr := range s.Critics {
		at := k.at(cr.NameRange, cr.Range)
		k.need(cr.Role.Set, at, fmt.Sprintf("critic %q: role", cr.Name), "role = role.NAME, naming a role of kind critic")
		k.need(cr.Votes.Set, at, fmt.Sprintf("critic %q: votes", cr.Name), "votes = 16 (k, critic samples per candidate)")
	}
	for _, l := range s.Loops {
		k.loop(l)
	}
	if r := s.Records; r != nil {
		k.need(r.SeedRuns.Set, k.at(r.Range), "records: seed_runs", "seed_runs = 100")
		k.intMin(r.SeedRuns, 0, "seed_runs")
	}
	if cal := s.Calibration; cal != nil {
		k.calibrationFields(cal)
	}
	if ev := s.Evaluation; ev != nil {
		k.evaluationFields(ev)
	}
	if b := s.Budget; b != nil {
		k.intMin(b.RealRuns, 1, "budget.real_runs")
		k.numMin(b.GPUHours, 0, true, "budget.gpu_hours")
		k.numMin(b.USD, 0, true, "budget.usd")
		k.numMin(b.WallHours, 0, true, "budget.wall_hours")
	}
	if ex := s.Executor; ex != nil {
		k.intMin(ex.Concurrency, 1, "executor.concurrency")
		k.intMin(ex.GPUs, 1, "executor.gpus")
		if ex.Kind.V == "slurm" {
			k.need(ex.Slurm != nil, k.at(ex.Kind.Range, ex.Range), "executor: slurm block", `slurm { partition = "gpu" }`)
		}
		if sl := ex.Slurm; sl != nil && sl.PollSeconds.Set && !(sl.PollSeconds.V >= 1 && sl.PollSeconds.V <= 86400) {
			k.add(diag.Errorf(CodeRange, sl.PollSeconds.Range, "executor.slurm.poll_seconds must lie in [1, 86400], got %g", sl.PollSeconds.V).
				WithDetail("a shared controller is asked about all of the run's jobs at most once per poll_seconds; 5 is the default"))
		}
	}
}

func (k *checker) roleFields(r *spec.Role) {
	at := k.at(r.NameRange, r.Range)
	k.need(r.Kind.Set, at, fmt.Sprintf("role %q: kind", r.Name), `kind = "proposer" (or rwm, builder, implementer, summarizer, critic); a role named after its kind needs none`)
	k.need(r.LLM.Set, at, fmt.Sprintf("role %q: llm", r.Name), "llm = plugin.NAME, naming an llm plugin")
	if r.Temperature.Set && (r.Temperature.V < 0 || r.Temperature.V > 2) {
		k.add(diag.Errorf(CodeRange, r.Temperature.Range, "temperature must lie in [0, 2], got %g", r.Temperature.V))
	}
	k.intMin(r.Concurrency, 1, "concurrency")
	k.numMin(r.Seconds, 0, false, "seconds")
	k.rolePrompt(r)
	if r.Tokens != nil {
		k.spread(r.Tokens.In, 0, math.Inf(1), false, "tokens.in")
		k.spread(r.Tokens.Out, 0, math.Inf(1), false, "tokens.out")
	}
	if r.Price != nil {
		k.numMin(r.Price.In, 0, false, "price.in")
		k.numMin(r.Price.Out, 0, false, "price.out")
	}
}

func (k *checker) rewardFields(r *spec.Reward) {
	at := k.at(r.NameRange, r.Range)
	k.need(r.Source.Set, at, fmt.Sprintf("reward %q: source", r.Name), `source = "predicted" (or "real", "critic")`)
	k.need(r.Value.Set, at, fmt.Sprintf("reward %q: value", r.Name), `value = "clip(predicted_gain / scale, -c, c)" (a formula)`)
	k.need(r.Infeasible.Set, at, fmt.Sprintf("reward %q: infeasible", r.Name), `infeasible = "-c" (a formula: the reward of a proposal that does not build or crashes)`)
	switch r.Source.V {
	case "predicted":
		k.need(r.Predictor.Set, at, fmt.Sprintf("reward %q: predictor", r.Name), "predictor = role.NAME, naming a role of kind rwm")
	}
	// A critic-sourced reward is labelled by its predictor or by the
	// screen of the loop that uses it; bind reports one with neither.
	k.numMin(r.Repeat, 0, false, "repeat_penalty")
	if r.Diversity != nil {
		k.numMin(r.Diversity.Weight, 0, false, "diversity.weight")
	}
}

func (k *checker) calibrationFields(cal *spec.Calibration) {
	at := k.at(cal.Range)
	k.need(cal.AfterSteps.Set, at, "calibration: after_steps", "after_steps = [16, 40, 64]")
	k.need(cal.Budget.Set, at, "calibration: budget", "budget = [31, 35, 34] (real runs per round, or one number for every round)")
	for _, b := range cal.Budget.V {
		if b < 0 {
			k.add(diag.Errorf(CodeRange, cal.Budget.Range, "calibration budget entries must not be negative, got %d", b))
		}
	}
}

func (k *checker) evaluationFields(ev *spec.Evaluation) {
	k.need(ev.AvgAt.Set || ev.BestAt.Set, k.at(ev.Range), "evaluation: avg_at or best_at", "avg_at = 4 and/or best_at = 4")
	k.intMin(ev.AvgAt, 1, "avg_at")
	k.intMin(ev.BestAt, 1, "best_at")
	k.intMin(ev.States, 1, "evaluation.states")
	k.intMin(ev.ICLRecords, 1, "evaluation.icl_records")
	switch {
	case ev.ICL.Set && !ev.ICLRecords.Set:
		k.need(false, k.at(ev.ICL.Range, ev.Range), "evaluation: icl_records", "icl_records = 200 (K, real records in the icl arm's prompt)")
	case ev.ICLRecords.Set && !ev.ICL.Set:
		k.add(diag.Errorf(CodeNotApplicable, ev.ICLRecords.Range, "icl_records applies to an icl arm, and the evaluation has none").
			WithDetail("name the in-context proposer with icl = role.NAME, or remove icl_records"))
	}
}

func (k *checker) environment(e *spec.Environment) {
	at := k.at(e.NameRange, e.Range)
	name := fmt.Sprintf("environment %q", e.Name)
	if k.need(e.Metric != nil, at, name+": metric", `metric { name = "val_bpb"  direction = "minimize" }`) {
		mat := k.at(e.Metric.Range, at)
		k.need(e.Metric.Name.Set, mat, name+": metric.name", `name = "val_bpb"`)
		k.need(e.Metric.Direction.Set, mat, name+": metric.direction", `direction = "minimize" (or "maximize")`)
	}
	if k.need(e.RunCost != nil, at, name+": run_cost", `run_cost { gpu = "B200"  gpus = 8  hours = 5.625 }`) {
		rc := e.RunCost
		rat := k.at(rc.Range, at)
		cpu := rc.GPUs.Set && rc.GPUs.V == 0 // a run that needs no GPU
		k.need(rc.GPU.Set || cpu, rat, name+": run_cost.gpu", `gpu = "B200" (or gpus = 0 for a run that needs no GPU)`)
		switch {
		case cpu && rc.GPUHours.Set:
			k.add(diag.Errorf(CodeConflict, rc.GPUHours.Range, "run_cost sets gpu_hours with gpus = 0").
				WithDetail("a run that needs no GPU spends no GPU-hours: give hours (its wall time) instead"))
		case rc.GPUHours.Set && rc.Hours.Set:
			k.add(diag.Errorf(CodeConflict, rc.GPUHours.Range, "run_cost sets both gpu_hours and hours").
				WithDetail("give gpus and hours, or gpu_hours alone"))
		case rc.GPUHours.Set:
		default:
			k.need(rc.GPUs.Set, rat, name+": run_cost.gpus", "gpus = 8 (or gpu_hours = 45 instead of gpus and hours)")
			k.need(rc.Hours.Set, rat, name+": run_cost.hours", "hours = 5.625 (or gpu_hours = 45 instead of gpus and hours)")
		}
		// 0 is a CPU run: no GPU is asked for and no GPU-hour charged.
		k.intMin(rc.GPUs, 0, "run_cost.gpus")
		k.spread(rc.Hours, 0, math.Inf(1), true, "run_cost.hours")
		k.spread(rc.GPUHours, 0, math.Inf(1), true, "run_cost.gpu_hours")
	}
	k.need(e.Trainer.Set, at, name+": trainer", "trainer = plugin.NAME, naming a trainer plugin")
	switch {
	case e.Tasks != nil && len(e.TaskList) > 0:
		k.add(diag.Errorf(CodeConflict, k.at(e.Tasks.Range, at), "%s gives both task counts and task blocks", name).
			WithDetail("list tasks one by one, or give tasks { train = N  holdout = M }, not both"))
	case e.Tasks != nil:
		k.intMin(e.Tasks.Train, 0, "tasks.train")
		k.intMin(e.Tasks.Holdout, 0, "tasks.holdout")
		k.need(e.Tasks.Train.Set || e.Tasks.Holdout.Set, k.at(e.Tasks.Range, at), name+": tasks.train or tasks.holdout", "train = 5  holdout = 1")
	case len(e.TaskList) > 0:
		for _, t := range e.TaskList {
			k.need(t.Split.Set, k.at(t.NameRange, t.Range, at), fmt.Sprintf("task %q: split", t.Name), `split = "train" (or "holdout")`)
			k.numMin(t.Scale, 0, true, "scale")
		}
	default:
		k.add(diag.Errorf(CodeMissing, at, "%s has no tasks", name).
			WithDetail("write tasks { train = 5  holdout = 1 }, or task \"NAME\" { split = \"train\" } blocks"))
	}
	k.numMin(e.Scale, 0, true, "scale")
}

var (
	rlOnly   = []string{"algorithm", "steps", "until_budget", "max_steps", "states", "proposals_per_state", "rollout_every", "zero_variance", "resample_rounds", "expected_dropped", "reward", "learning_rate", "new_parent", "audit_share"}
	evolOnly = []string{"islands", "rounds", "migration_every", "ideas_per_round", "verifications_per_round", "select", "verify_routed", "migration_rate", "top_programs", "diverse_programs", "feature_bins", "children_per_parent"}
)

// adapterNameRE is what an update's adapter prefix may be: a served model
// name, safe in a URL path and a file name.
var adapterNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// loop checks a loop's kind and refuses the other kind's fields, then
// checks its own kind's fields.
func (k *checker) loop(l *spec.Loop) {
	at := k.at(l.NameRange, l.Range)
	name := fmt.Sprintf("loop %q", l.Name)
	if !k.need(l.Kind.Set, at, name+": kind", `kind = "rl" (or "evolution"), or preset = "dapo"`) {
		return
	}
	set := loopFieldsSet(l)
	other := evolOnly
	if l.Kind.V == "evolution" {
		other = rlOnly
	}
	for _, f := range other {
		if r, ok := set[f]; ok && r.Valid() {
			k.add(diag.Errorf(CodeLoopField, r, "%s is not a field of a %s loop", f, l.Kind.V).
				WithDetail("remove it, or change kind"))
		}
	}
	switch l.Kind.V {
	case "rl":
		k.checkRLLoop(l, at, name)
	case "evolution":
		k.checkEvolutionLoop(l, at, name)
	}
}

// checkRLLoop checks an RL loop's required fields, ranges and the
// conflicts of steps, until_budget and max_steps.
func (k *checker) checkRLLoop(l *spec.Loop, at diag.Range, name string) {
	k.need(l.Algorithm.Set, at, name+": algorithm", `algorithm = "dapo" (or "grpo")`)
	if l.Steps.Set && l.UntilBudget.Set && l.UntilBudget.V {
		k.add(diag.Errorf(CodeConflict, l.UntilBudget.Range, "%s sets both steps and until_budget = true", name).
			WithDetail("remove steps to spend the budget, or remove until_budget"))
	}
	if l.MaxSteps.Set && !l.UntilBudget.V {
		k.add(diag.Errorf(CodeNotApplicable, l.MaxSteps.Range, "%s sets max_steps, which bounds only a loop with until_budget = true", name).
			WithDetail("remove max_steps; steps already fixes this loop's length"))
	}
	k.intMin(l.MaxSteps, 1, "max_steps")
	if !l.Steps.Set && !l.UntilBudget.V {
		k.add(diag.Errorf(CodeLoopField, at, "%s needs steps or until_budget = true", name).
			WithDetail("write steps = 96, or until_budget = true with budget { real_runs = N }"))
	}
	k.need(l.StatesPerStep.Set, at, name+": states", "states = 256")
	k.need(l.ProposalsPerState.Set, at, name+": proposals_per_state", "proposals_per_state = 8")
	k.need(l.Reward.Set, at, name+": reward", "reward = reward.NAME")
	k.intMin(l.Steps, 1, "steps")
	k.intMin(l.StatesPerStep, 1, "states")
	k.intMin(l.ProposalsPerState, 1, "proposals_per_state")
	k.intMin(l.RolloutEvery, 1, "rollout_every")
	k.numMin(l.LearningRate, 0, true, "learning_rate")
	k.intMin(l.ResampleRounds, 0, "resample_rounds")
	k.auditShare(l)
	if l.ExpectedDropped.Set && (l.ExpectedDropped.V < 0 || l.ExpectedDropped.V > 1) {
		k.add(diag.Errorf(CodeRange, l.ExpectedDropped.Range, "expected_dropped is a share of groups, in [0, 1]; got %g", l.ExpectedDropped.V))
	}
	if l.Update != nil {
		k.checkUpdate(l.Update, at, name)
	}
}

// checkUpdate checks an RL loop's update block: its trainer and resources,
// hyperparameters, LoRA rank and adapter name.
func (k *checker) checkUpdate(u *spec.PolicyUpdate, at diag.Range, name string) {
	uat := k.at(u.Range, at)
	k.need(u.Trainer.Set, uat, name+": update.trainer", "trainer = plugin.NAME, a command plugin with update_command in its config")
	k.need(u.GPU.Set, uat, name+": update.gpu", `gpu = "B200"`)
	k.need(u.GPUs.Set, uat, name+": update.gpus", "gpus = 8")
	k.need(u.Hours.Set, uat, name+": update.hours", "hours = 1.5 (wall-clock hours of one update)")
	k.intMin(u.GPUs, 1, "update.gpus")
	k.numMin(u.Hours, 0, true, "update.hours")
	k.updateHyper(u)
	if u.Trainer.Set {
		k.loraRank(name+": update", u.Trainer, u.LoRARank)
	}
	if u.Adapter.Set && !adapterNameRE.MatchString(u.Adapter.V) {
		k.add(diag.Errorf(CodeRange, u.Adapter.Range, "update.adapter %q is not a name an endpoint serves adapters under", u.Adapter.V).
			WithDetail("use letters, digits, '.', '_' and '-', starting with a letter or digit"))
	}
}

// checkEvolutionLoop checks an evolution loop's required fields, ranges,
// archive and migrations.
func (k *checker) checkEvolutionLoop(l *spec.Loop, at diag.Range, name string) {
	if l.Update != nil {
		k.add(diag.Errorf(CodeLoopField, k.at(l.Update.Range, at), "update is not a block of an evolution loop").
			WithDetail("remove it: an evolution loop trains no policy"))
	}
	k.need(l.Islands.Set, at, name+": islands", "islands = 3")
	k.need(l.Rounds.Set, at, name+": rounds", "rounds = 10")
	// Without a screen the loop makes the ideas it verifies (lowering).
	k.need(l.Ideas.Set || !l.Screen.Set, at, name+": ideas_per_round", "ideas_per_round = 16")
	k.need(l.Verifications.Set, at, name+": verifications_per_round", "verifications_per_round = 1")
	k.intMin(l.Islands, 1, "islands")
	k.intMin(l.Rounds, 1, "rounds")
	k.intMin(l.Ideas, 1, "ideas_per_round")
	k.intMin(l.Verifications, 1, "verifications_per_round")
	k.intMin(l.MigrationEvery, 1, "migration_every")
	k.intMin(l.TopPrograms, 0, "top_programs")
	k.intMin(l.DiversePrograms, 0, "diverse_programs")
	k.childrenPerParent(l)
	if mr := l.MigrationRate; mr.Set && (mr.V <= 0 || mr.V > 1) {
		k.add(diag.Errorf(CodeRange, mr.Range, "migration_rate must lie in (0, 1], got %g", mr.V).
			WithDetail("write migration_rate = 0.1 (a tenth of an island's programs, at least one, migrate)"))
	}
	k.featureBins(l)
	if l.MigrationEvery.Set && l.Rounds.Set && l.MigrationEvery.V > l.Rounds.V {
		k.add(diag.Warnf(CodeRange, l.MigrationEvery.Range, "migration_every %d exceeds rounds %d, so no migration happens", l.MigrationEvery.V, l.Rounds.V))
	}
}

// Features lists the MAP-Elites feature dimensions a loop's feature_bins
// may name.
var Features = []string{"complexity", "diversity", "mechanism", "score"}

// maxFeatureBins bounds one dimension's bins: an archive is a map of
// cells, and a typo such as 1e9 would only waste memory.
const maxFeatureBins = 1000

// featureBins checks an evolution loop's MAP-Elites dimensions: known
// names, whole bin counts in [0, maxFeatureBins].
func (k *checker) featureBins(l *spec.Loop) {
	fb := l.FeatureBins
	if !fb.Set {
		return
	}
	for _, name := range keys(fb.V) {
		n := fb.V[name]
		if !slices.Contains(Features, name) {
			d := diag.Errorf(CodeEnum, fb.Range, "feature_bins of loop %q names %q, which is no feature dimension", l.Name, name)
			if hint := diag.DidYouMean(name, Features); hint != "" {
				d.WithDetail("%s The dimensions are: %s.", hint, strings.Join(Features, ", "))
			} else {
				d.WithDetail("the dimensions are: %s", strings.Join(Features, ", "))
			}
			k.add(d)
			continue
		}
		if n != math.Trunc(n) || n < 0 || n > maxFeatureBins {
			k.add(diag.Errorf(CodeRange, fb.Range, "feature_bins of loop %q: %s must be a whole number of bins in [0, %d], got %g", l.Name, name, maxFeatureBins, n).
				WithDetail("write %s = 10 (or 0 to leave the dimension out)", name))
		}
	}
}

// loopFieldsSet returns the range of each loop field the user wrote (not a
// default: defaults have no range).
func loopFieldsSet(l *spec.Loop) map[string]diag.Range {
	out := map[string]diag.Range{}
	b := spec.Describe().Field("loop").Block
	v := reflect.ValueOf(l).Elem()
	for _, f := range b.Fields {
		fv := spec.FieldValue(v, f)
		if f.Kind != spec.Attr {
			continue
		}
		if fv.FieldByName("Set").Bool() {
			out[f.Name] = fv.FieldByName("Range").Interface().(diag.Range)
		}
	}
	return out
}
