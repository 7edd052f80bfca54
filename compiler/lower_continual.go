package compiler

import (
	"fmt"
	"math"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// A continual block's defaults are in defaults.go (ccGRPOEvery, ...).

// continuals checks every evolution loop's continual block.
func (k *checker) continuals() {
	for _, l := range k.s.Loops {
		if l.Continual != nil {
			k.continual(l, l.Continual)
		}
	}
}

func (k *checker) continual(l *spec.Loop, c *spec.CriticContinual) {
	at := k.at(c.Range, l.NameRange, l.Range)
	name := fmt.Sprintf("loop %q: continual", l.Name)
	if l.Kind.Set && l.Kind.V != "evolution" {
		k.add(diag.Errorf(CodeLoopField, at, "continual is not a block of a %s loop", l.Kind.V).
			WithDetail("remove it: continual adapts an evolution loop's screen critic"))
		return
	}
	if !l.Screen.Set {
		k.add(diag.Errorf(CodeNotApplicable, at, "%s adapts the loop's screen critic, and the loop has no screen", name).
			WithDetail("write screen = critic.NAME in the loop, or remove the continual block"))
		return
	}
	if !ccEnabled.of(c.Enabled) {
		k.continualFrozen(name, c)
		return
	}
	k.intMin(c.GRPOEvery, 0, "continual.grpo_every")
	k.intMin(c.SDFTEvery, 0, "continual.sdft_every")
	k.intMin(c.GRPOPairs, 1, "continual.grpo_pairs")
	k.intMin(c.SDFTPairs, 1, "continual.sdft_pairs")
	k.intMin(c.Group, 2, "continual.group")
	if calls := float64(ccGRPOPairs.of(c.GRPOPairs)) * float64(ccGroup.of(c.Group)); calls > maxCriticCalls || c.SDFTPairs.V > MaxCriticPairs {
		k.add(diag.Errorf(CodeRange, at, "%s: one update makes at most %d calls; grpo_pairs x group is %.0f, sdft_pairs %d", name, int64(maxCriticCalls), calls, c.SDFTPairs.V))
	}
	grpo, sdft := ccGRPOEvery.of(c.GRPOEvery) > 0, ccSDFTEvery.of(c.SDFTEvery) > 0
	k.continualLength(l, c, at, name)
	if !grpo && !sdft {
		k.add(diag.Errorf(CodeMissing, at, "%s trains nothing: grpo_every and sdft_every are both 0", name).
			WithDetail("set grpo_every or sdft_every to a number of rounds, or write enabled = false for a frozen critic"))
	}
	k.continualOff(name, !grpo, "grpo_every = 0", c.GRPOPairs.Set, c.GRPOPairs.Range, "grpo_pairs")
	k.continualOff(name, !grpo, "grpo_every = 0", c.Group.Set, c.Group.Range, "group")
	k.continualOff(name, !sdft, "sdft_every = 0", c.SDFTPairs.Set, c.SDFTPairs.Range, "sdft_pairs")
	k.continualOff(name, !sdft, "sdft_every = 0", c.Teacher.Set, c.Teacher.Range, "teacher")
	cr := k.x.critics[l.Screen.Name]
	if sdft {
		k.need(c.Teacher.Set, at, name+".teacher", "teacher = role.NAME, a critic-kind role told the measured outcome")
		if r := k.x.roles[c.Teacher.Name]; c.Teacher.Set && r != nil && r.Kind.V != plugKindCritic {
			k.add(diag.Errorf(CodeRefKind, c.Teacher.Range, "teacher of %s must be a critic-kind role; role %q is a %s role", name, r.Name, r.Kind.V))
		}
		if cr != nil && cr.Labels.V == "5way" {
			// A live loop knows a pair's direction; its 5-way label needs
			// the parent's other children (the paper's ladder).
			k.add(diag.Errorf(CodeNotApplicable, k.at(c.SDFTEvery.Range, at), "%s: SDFT tells the teacher each pair's measured 3-way outcome, and critic %q labels in 5way", name, cr.Name).
				WithDetail("write sdft_every = 0 (T-GRPO rewards a 5-way verdict by its direction), or labels = \"3way\" in the critic"))
		}
	}
	// The update's trainer is checked as a critic training's is.
	ct := &spec.CriticTraining{Name: l.Name + ".continual", Critic: l.Screen}
	k.criticUpdate(ct, name, c.Trainer, c.GPU, c.GPUs, c.Hours, spec.Val[string]{}, at)
	k.loraRank(name, c.Trainer, c.LoRARank)
}

// continualLength refuses a schedule of more than plan.MaxContinualUpdates
// updates: the plan lists each one.
func (k *checker) continualLength(l *spec.Loop, c *spec.CriticContinual, at diag.Range, name string) {
	tasks, rounds, scope := countSplit(k.s, l.Split.V), l.Rounds.V, ccScope.of(c.Scope)
	n := continualUpdates(tasks, rounds, scope, ccSDFTEvery.of(c.SDFTEvery)) + continualUpdates(tasks, rounds, scope, ccGRPOEvery.of(c.GRPOEvery))
	if n > plan.MaxContinualUpdates {
		k.add(diag.Errorf(CodeRange, at, "%s makes %.0f updates over %d tasks of %d rounds, more than %d", name, n, tasks, rounds, plan.MaxContinualUpdates).
			WithDetail("raise sdft_every or grpo_every, or run fewer rounds or tasks"))
	}
}

// continualFrozen refuses every field of a block that enabled = false
// turns off: none takes effect. In a sweep over enabled, the variants
// that adapt read them, so there it is a warning (W_VARIANTS_IGNORE).
func (k *checker) continualFrozen(name string, c *spec.CriticContinual) {
	for _, f := range []struct {
		set   bool
		r     diag.Range
		field string
	}{{c.Scope.Set, c.Scope.Range, "scope"}, {c.Teacher.Set, c.Teacher.Range, "teacher"}, {c.GRPOEvery.Set, c.GRPOEvery.Range, "grpo_every"},
		{c.GRPOPairs.Set, c.GRPOPairs.Range, "grpo_pairs"}, {c.Group.Set, c.Group.Range, "group"},
		{c.SDFTEvery.Set, c.SDFTEvery.Range, "sdft_every"}, {c.SDFTPairs.Set, c.SDFTPairs.Range, "sdft_pairs"},
		{c.Trainer.Set, c.Trainer.Range, "trainer"}, {c.GPU.Set, c.GPU.Range, "gpu"},
		{c.GPUs.Set, c.GPUs.Range, "gpus"}, {c.Hours.Set, c.Hours.Range, "hours"}, {c.LoRARank.Set, c.LoRARank.Range, "lora_rank"}} {
		if f.set {
			k.add(diag.Errorf(CodeNotApplicable, f.r, "%s: %s takes no effect: enabled = false keeps the critic frozen", name, f.field).
				WithDetail("remove %s, or sweep loop.NAME.continual.enabled over [false, true] to compare a frozen and a continual critic", f.field))
		}
	}
}

// continualOff refuses a field of an update kind the block turns off.
func (k *checker) continualOff(name string, off bool, why string, set bool, r diag.Range, field string) {
	if off && set {
		k.add(diag.Errorf(CodeNotApplicable, r, "%s: %s takes effect only in an update that %s turns off", name, field, why).
			WithDetail("remove %s", field))
	}
}

// continual lowers an evolution loop's continual block; nil when it has
// none or enabled = false (the frozen arm). Its updates are the
// schedule (continualSchedule) the runtime follows.
func (lv *lowering) continual(l *spec.Loop) *plan.CriticContinual {
	c := l.Continual
	if c == nil || !ccEnabled.of(c.Enabled) || !l.Screen.Set {
		return nil
	}
	cr := lv.x.critics[l.Screen.Name]
	out := &plan.CriticContinual{Scope: ccScope.of(c.Scope),
		Training: &plan.CriticTraining{Name: l.Name + ".continual", Critic: cr.Name, Role: cr.Role.Name, Labels: cr.Labels.V}}
	ct := out.Training
	sdftEvery, grpoEvery := ccSDFTEvery.of(c.SDFTEvery), ccGRPOEvery.of(c.GRPOEvery)
	out.Updates = continualSchedule(lv.s, l, out.Scope, sdftEvery, grpoEvery)
	// Each update of the schedule is made at most once; none when no
	// pair was verified since.
	made := func(kind string) plan.Count {
		n := 0.0
		for _, u := range out.Updates {
			if u.Kind == kind {
				n++
			}
		}
		return plan.Count{Low: 0, Expected: n, High: n}
	}
	if sdftEvery > 0 {
		ct.Teacher, out.SDFTPairs = c.Teacher.Name, ccSDFTPairs.of(c.SDFTPairs)
		ct.SFT = lv.criticUpdate("sft", c.Trainer, c.GPU, c.GPUs, c.Hours, l.Name+"-sdft")
		ct.SFT.LearningRate, ct.SFT.Epochs, ct.SFT.Updates, ct.SFT.LoRARank = ctSFTLR.v, 1, made(plan.UpdateSDFT), c.LoRARank.V
	}
	if grpoEvery > 0 {
		out.GRPOPairs = ccGRPOPairs.of(c.GRPOPairs)
		u := lv.criticUpdate("grpo", c.Trainer, c.GPU, c.GPUs, c.Hours, l.Name+"-tgrpo")
		u.Batch, u.Group, u.Updates = out.GRPOPairs, ccGroup.of(c.Group), made(plan.UpdateGRPO)
		u.KLCoef, u.LearningRate, u.WeightDecay, u.LoRARank = ctKL.v, ctGRPOLR.v, ctWeightDecay.v, c.LoRARank.V
		ct.GRPO = u
	}
	return out
}

// continualSchedule is the updates a continual critic makes over loop l's
// tasks, in the order the runtime runs them (environments, then their
// tasks of the split, each for the loop's rounds): before round r of a
// task (from 0), counted within the task with scope task or across the
// tasks with scope loop (the global round g = task index x rounds + r),
// an SDFT update when that count is a positive multiple of sdftEvery,
// then a T-GRPO update when it is one of grpoEvery (0: never). Every
// update is keyed by g.
func continualSchedule(s *spec.Spec, l *spec.Loop, scope string, sdftEvery, grpoEvery int) []plan.ContinualUpdate {
	var out []plan.ContinualUpdate
	rounds, ti := l.Rounds.V, 0
	for _, e := range s.Environments {
		for _, t := range envTasks(e, l.Split.V) {
			for r := 0; r < rounds; r++ {
				g := ti*rounds + r
				at := g
				if scope == plan.ContinualTask {
					at = r
				}
				if at <= 0 || len(out) >= plan.MaxContinualUpdates {
					continue // the checker refuses a longer schedule
				}
				task := plan.TaskRef{Env: e.Name, Task: t.Name}
				if sdftEvery > 0 && at%sdftEvery == 0 {
					out = append(out, plan.ContinualUpdate{Task: task, Round: r, Key: g, Kind: plan.UpdateSDFT})
				}
				if grpoEvery > 0 && at%grpoEvery == 0 {
					out = append(out, plan.ContinualUpdate{Task: task, Round: r, Key: g, Kind: plan.UpdateGRPO})
				}
			}
			ti++
		}
	}
	return out
}

// continualUpdates is how many updates continualSchedule lists, counted
// without listing them, so that a schedule too long for a plan is refused
// before it is made.
func continualUpdates(tasks, rounds int, scope string, every int) float64 {
	if every <= 0 {
		return 0
	}
	t, r, e := float64(tasks), float64(rounds), float64(every)
	if scope == plan.ContinualLoop {
		return math.Floor(math.Max(t*r-1, 0) / e)
	}
	return t * math.Floor(math.Max(r-1, 0)/e)
}

// continualCalls adds each continual critic's calls to its evolution
// phase: per update at most its pairs' teacher critiques and, with a
// trainer, the critic's own critiques of them (SDFT: the student's
// trajectory), and group verdicts (T-GRPO), at least none (no pair
// verified since).
func continualCalls(phases []*plan.Phase) {
	for _, ph := range phases {
		if ph.Evolution == nil || ph.Evolution.Continual == nil {
			continue
		}
		cc := ph.Evolution.Continual
		ct := cc.Training
		if ph.Calls.LLM == nil {
			ph.Calls.LLM = map[string]plan.Count{}
		}
		if u := ct.SFT; u != nil {
			ph.Calls.LLM[ct.Teacher] = ph.Calls.LLM[ct.Teacher].Add(u.Updates.Scale(float64(cc.SDFTPairs)))
			if u.Trainer != "" {
				ph.Calls.LLM[ct.Role] = ph.Calls.LLM[ct.Role].Add(u.Updates.Scale(float64(cc.SDFTPairs)))
			}
		}
		if u := ct.GRPO; u != nil {
			ph.Calls.LLM[ct.Role] = ph.Calls.LLM[ct.Role].Add(u.Updates.Scale(float64(u.Batch * u.Group)))
		}
	}
}
