package compiler

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/assay-lang/assay/lang/diag"

	"github.com/assay-lang/assay/lang/spec"
)

// applies refuses fields that are set where nothing reads them: a value that
// would change the plan but not what a run does is a mistake the user should
// hear about, not a knob that silently does nothing. Only values the user
// wrote are refused (a default or a preset has no range); each refusal
// points at the value and says what would make it take effect.
//
// It runs after the formulas pass because several rules ask which names a
// formula reads; a formula that does not parse was reported there and is
// taken to read nothing here only when it parsed.
func applies(c *compilation) {
	for _, v := range c.variants {
		k := &checker{c: c, s: v.spec, x: v.idx, v: v}
		k.applies()
	}
}

func (k *checker) applies() {
	for _, r := range k.s.Rewards {
		k.rewardApplies(r)
	}
	for _, cr := range k.s.Critics {
		k.criticApplies(cr)
	}
	for _, e := range k.s.Environments {
		k.envApplies(e)
	}
	for _, l := range k.s.Loops {
		k.presetApplies(l)
		k.loopApplies(l)
		if l.Kind.V == "evolution" && l.Screen.Set && l.Select.V == "random" {
			k.add(diag.Errorf(CodeConflict, k.at(l.Select.Range, l.Screen.Range), "loop %q verifies ideas at random, so the verdicts of its screen critic.%s pick nothing (and its votes are paid for)", l.Name, l.Screen.Name).
				WithDetail("remove screen for a random-verification baseline, or select = \"best_mean_rank\" (or \"majority\")"))
		}
	}
	if ex := k.s.Executor; ex != nil && ex.Slurm != nil && ex.Kind.V == "local" {
		k.add(diag.Errorf(CodeSlurmLocal, k.at(ex.Slurm.Range, ex.Kind.Range, ex.Range), "a slurm block is set, but executor.kind is \"local\", so no job is submitted").
			WithDetail("set kind = \"slurm\", or remove the slurm block"))
	}
}

// envApplies refuses an environment's scale or baseline when every task it
// lists sets its own: the environment's value is then no task's.
func (k *checker) envApplies(e *spec.Environment) {
	if len(e.TaskList) == 0 {
		return
	}
	allScale, allBase := true, true
	for _, t := range e.TaskList {
		allScale = allScale && t.Scale.Set
		allBase = allBase && t.Baseline.Set
	}
	for _, f := range []struct {
		field string
		all   bool
		v     spec.Val[float64]
	}{{"scale", allScale, e.Scale}, {"baseline", allBase, e.Baseline}} {
		if f.all && f.v.Set && f.v.Range.Valid() {
			k.add(diag.Errorf(CodeShadowed, f.v.Range, "environment %q sets %s, but every task it lists sets its own", e.Name, f.field).
				WithDetail("remove %s here, or from the tasks that should use this one", f.field))
		}
	}
}

// presetApplies refuses a loop preset that fills no field: the loop sets
// every field the preset would. Presets give the values they fill the range
// of the preset attribute (see stdlib.ApplyPresets), which tells them apart.
func (k *checker) presetApplies(l *spec.Loop) {
	p := l.Preset
	if !p.Set || !p.Range.Valid() {
		return
	}
	v := reflect.ValueOf(l).Elem()
	for _, f := range spec.Describe().Field("loop").Block.Fields {
		if f.Kind != spec.Attr || f.Name == "preset" {
			continue
		}
		fv := spec.FieldValue(v, f)
		if r, ok := fv.FieldByName("Range").Interface().(diag.Range); ok && fv.FieldByName("Set").Bool() && r == p.Range {
			return
		}
	}
	k.add(diag.Errorf(CodePresetUnused, p.Range, "loop %q sets every field preset %q would fill, so the preset does nothing", l.Name, p.V).
		WithDetail("remove preset, or the fields that should come from it"))
}

// reads reports whether formula f reads name; ok is false when f is unset or
// did not check clean (then nothing is concluded from it). It reads the
// tree the formulas pass checked, rather than parsing again.
func (k *checker) reads(f spec.Formula, name string) (yes, ok bool) {
	e := k.c.checked[f.V]
	if !f.Set || e == nil {
		return false, false
	}
	return slices.Contains(e.Vars(), name), true
}

// danglingRefs reports whether a loop's reward or screen, or a reward's
// predictor, names a block that does not exist: resolve reported it, and a
// block the typo meant would otherwise be reported unused as well.
func (k *checker) danglingRefs() bool {
	for _, l := range k.s.Loops {
		if (l.Reward.Set && k.x.rewards[l.Reward.Name] == nil) || (l.Screen.Set && k.x.critics[l.Screen.Name] == nil) {
			return true
		}
	}
	for _, r := range k.s.Rewards {
		if r.Predictor.Set && r.Predictor.Kind == "critic" && k.x.critics[r.Predictor.Name] == nil {
			return true
		}
	}
	return false
}

// rewardLoops lists the loops whose reward is r.
func (k *checker) rewardLoops(r *spec.Reward) []*spec.Loop {
	var out []*spec.Loop
	for _, l := range k.s.Loops {
		if l.Reward.Set && l.Reward.Name == r.Name {
			out = append(out, l)
		}
	}
	return out
}

// calibrated reports whether the plan's calibration compares gains as
// reward r shapes them (calibrationPlan states it): then its normalize and
// clip take effect there whatever the formulas read.
func (k *checker) calibrated(r *spec.Reward) bool {
	_, shaper := calibrationPlan(k.s, k.x)
	return shaper != nil && shaper.Name == r.Name
}

// readsScale reports whether reward r's normalisation takes effect: its
// value formula reads scale, or a calibration compares its rewards.
func (k *checker) readsScale(r *spec.Reward) bool {
	yes, ok := k.reads(r.Value, "scale")
	return yes || !ok || k.calibrated(r)
}

func (k *checker) rewardApplies(r *spec.Reward) {
	name := fmt.Sprintf("reward %q", r.Name)
	loops := k.rewardLoops(r)
	if len(loops) == 0 && !k.danglingRefs() {
		k.add(diag.Errorf(CodeUnusedBlock, k.at(r.NameRange, r.Range), "%s is the reward of no loop, so none of its fields takes effect", name).
			WithDetail("write reward = reward.%s in a loop, or remove the block", r.Name))
	}
	if len(loops) == 0 {
		return
	}
	cal := k.calibrated(r)

	vc, vok := k.reads(r.Value, "c")
	ic, iok := k.reads(r.Infeasible, "c")
	switch {
	case r.Clip.Set && r.Clip.Range.Valid() && vok && iok && !vc && !ic && !cal:
		k.add(diag.Errorf(CodeClipUnused, r.Clip.Range, "clip is set, but neither the value nor the infeasible formula of %s reads c", name).
			WithDetail("use c in a formula, e.g. value = \"clip(gain / scale, -c, c)\", or remove clip"))
	case !r.Clip.Set && (vc || ic):
		f := r.Value
		if !vc {
			f = r.Infeasible
		}
		k.add(diag.Errorf(CodeMissing, k.at(f.Range, r.NameRange), "a formula of %s reads c, but clip is not set", name).
			WithDetail("write clip = 6 (rewards are clipped to [-c, c])"))
	}

	if r.Normalize.Set && r.Normalize.Range.Valid() && !k.readsScale(r) {
		k.add(diag.Errorf(CodeNormalizeUnused, r.Normalize.Range, "normalize is set, but the value formula of %s does not read scale, and no calibration compares its rewards", name).
			WithDetail("divide by scale in the value formula, e.g. \"clip(gain / scale, -c, c)\", or remove normalize"))
	}

	bonus, bok := k.reads(r.Value, "diversity_bonus")
	if dv := r.Diversity; dv != nil {
		at := k.at(dv.Range, r.NameRange)
		if bok && !bonus {
			k.add(diag.Errorf(CodeDiversityUnused, at, "a diversity block is set, but the value formula of %s does not read diversity_bonus", name).
				WithDetail("add + diversity_bonus to the value formula, or remove the diversity block"))
		}
		k.need(dv.Weight.Set, at, name+": diversity.weight", "weight = 0.2 (the bonus of a proposal alone in its direction)")
	} else if bonus {
		k.add(diag.Errorf(CodeMissing, k.at(r.Value.Range, r.NameRange), "the value formula of %s reads diversity_bonus, but the reward has no diversity block", name).
			WithDetail("add diversity { by = \"mechanism\"  weight = 0.2 }, or drop diversity_bonus from the formula"))
	}
}

// critic use: which loops screen with it and which rewards it labels for.
func (k *checker) criticUse(cr *spec.Critic) (rl, evolution int, labels bool) {
	for _, l := range k.s.Loops {
		if l.Screen.Set && l.Screen.Name == cr.Name {
			// An evolution loop that verifies routed ideas routes as an RL
			// screen does.
			switch {
			case routesWith(l):
				rl++
			case l.Kind.V == "evolution":
				evolution++
			}
		}
	}
	for _, r := range k.s.Rewards {
		if r.Source.V == "critic" && r.Predictor.Set && r.Predictor.Kind == "critic" && r.Predictor.Name == cr.Name {
			labels = true
		}
	}
	return rl, evolution, labels
}

// screensRL reports whether an RL loop screens with critic name: only there
// does its routed share decide real runs.
func (k *checker) screensRL(name string) bool { return screensRL(k.s, name) }

func (k *checker) criticApplies(cr *spec.Critic) {
	name := fmt.Sprintf("critic %q", cr.Name)
	rl, evo, labels := k.criticUse(cr)
	if !k.criticUsed(cr, name, rl+evo, labels) {
		return
	}
	labels = labels || k.criticTrained(cr.Name) // a trained critic labels its pairs
	user := func(r diag.Range) bool { return r.Valid() }
	if rl+evo == 0 {
		// Labelling only (the critic-only ablation): nothing is routed.
		for _, f := range []struct {
			field string
			set   bool
			r     diag.Range
		}{{"threshold", cr.Threshold.Set, cr.Threshold.Range}, {"route", cr.Route.Set, cr.Route.Range},
			{"expected_routed", cr.ExpectedRouted.Set && cr.ExpectedRouted.V.High != 0, cr.ExpectedRouted.Range}} {
			if f.set && user(f.r) {
				k.add(diag.Errorf(CodeUnscreened, f.r, "%s is set, but no loop screens with %s, so nothing is routed to a real run", f.field, name).
					WithDetail("write screen = critic.%s in a loop, or remove %s (expected_routed = 0 may stay: it says nothing is routed)", cr.Name, f.field))
			}
		}
	} else {
		if rl == 0 {
			// Evolution verifies by its select rule; the routed share
			// decides no real run and the estimate does not read it.
			for _, f := range []struct {
				field string
				set   bool
				r     diag.Range
			}{{"expected_routed", cr.ExpectedRouted.Set, cr.ExpectedRouted.Range}} {
				if f.set && user(f.r) {
					k.add(diag.Errorf(CodeUnscreened, f.r, "%s is set, but %s screens only evolution loops, which verify by their select rule, not by a routed share", f.field, name).
						WithDetail("remove %s; the verifications per round fix an evolution loop's real runs", f.field))
				}
			}
		}
		if !cr.Threshold.Set && !cr.Route.Set {
			k.add(diag.Errorf(CodeMissing, k.at(cr.NameRange, cr.Range), "%s screens a loop but has neither threshold nor route", name).
				WithDetail("write threshold = 0.25 (candidates at or above this uncertainty are routed), or a route formula"))
		}
		if t, ok := k.reads(cr.Route, "threshold"); ok && !t && cr.Threshold.Set && user(cr.Threshold.Range) && user(cr.Route.Range) {
			k.add(diag.Errorf(CodeThresholdUnused, cr.Threshold.Range, "threshold is set, but the route formula of %s does not read it", name).
				WithDetail("use threshold in route, or remove threshold"))
		}
	}
	if cr.Tie.Set && user(cr.Tie.Range) && cr.Votes.Set {
		switch {
		case cr.Votes.V == 1:
			k.add(diag.Errorf(CodeTieUnused, cr.Tie.Range, "tie is set, but %s has one vote, which cannot tie", name).
				WithDetail("remove tie, or take more votes"))
		case cr.Aggregate.V == "mean_rank" && cr.Votes.V%2 == 1:
			k.add(diag.Errorf(CodeTieUnused, cr.Tie.Range, "tie is set, but the mean rank of %s's %d votes (an odd number) never falls half-way between two labels", name, cr.Votes.V).
				WithDetail("remove tie, or take an even number of votes"))
		}
	}
}

// criticUsed refuses a critic nothing uses, and the voting fields of one
// only a critic training uses; false when no loop screens with it and no
// reward or training has it label, so its other fields are not checked.
func (k *checker) criticUsed(cr *spec.Critic, name string, screens int, labels bool) bool {
	evaluated, trained := evaluatedBy(k.s, cr.Name), k.criticTrained(cr.Name)
	if screens == 0 && !labels && !evaluated && trained {
		k.trainedOnly(cr, name)
	}
	labels = labels || trained // a trained critic labels its pairs
	if screens == 0 && !labels && !evaluated && !k.danglingRefs() {
		k.add(diag.Errorf(CodeUnusedBlock, k.at(cr.NameRange, cr.Range), "%s screens no loop and labels for no reward, so none of its fields takes effect", name).
			WithDetail("write screen = critic.%s in a loop, or predictor = critic.%s in a reward with source = \"critic\", or remove the block", cr.Name, cr.Name))
	}
	return screens > 0 || labels
}

// trainedOnly refuses the voting fields of a critic that only a critic
// training uses: its GRPO samples a group of verdicts per pair and its
// teacher its samples, so no vote is taken and none is aggregated.
func (k *checker) trainedOnly(cr *spec.Critic, name string) {
	for _, f := range []struct {
		field string
		set   bool
		r     diag.Range
	}{{"votes", cr.Votes.Set, cr.Votes.Range}, {"aggregate", cr.Aggregate.Set, cr.Aggregate.Range}, {"tie", cr.Tie.Set, cr.Tie.Range}} {
		if f.set && f.r.Valid() {
			k.add(diag.Errorf(CodeNotApplicable, f.r, "%s is set, but %s is only trained: a critic training takes no votes (its GRPO samples a group of verdicts per pair)", f.field, name).
				WithDetail("remove %s, or screen a loop, label a reward or bench the critic with it", f.field))
		}
	}
}

// loopApplies refuses the loop fields that name a mechanism the loop does
// not have: a new parent where states are histories, repairs without a
// builder, archive inspirations without an archive, a migration rate
// without migrations.
func (k *checker) loopApplies(l *spec.Loop) {
	name := fmt.Sprintf("loop %q", l.Name)
	// A value the loop's preset filled is the preset's, not a mistake of
	// the spec's: a preset may carry settings that some of its loops lack
	// the mechanism for.
	user := func(r diag.Range) bool { return r.Valid() && !(l.Preset.Set && r == l.Preset.Range) }
	k.judgeAndBuildApply(l, name, user)
	if l.Kind.V == "evolution" {
		k.evolutionApplies(l, name, user)
	}
}

// judgeAndBuildApply refuses new_parent in an RL loop whose states are
// histories (a world model's reward), and repairs without a builder.
func (k *checker) judgeAndBuildApply(l *spec.Loop, name string, user func(diag.Range) bool) {
	if np := l.NewParent; np.Set && user(np.Range) && l.Kind.V == "rl" {
		if rw := k.x.rewards[l.Reward.Name]; rw != nil && rw.Source.V == "predicted" {
			k.add(diag.Errorf(CodeNotApplicable, np.Range, "new_parent is set, but %s is rewarded by a world model's prediction: its states are a task and its history, not a parent", name).
				WithDetail("remove new_parent; it applies where a critic or a real run judges each child against its parent"))
		}
	}
	if rp := l.Repairs; rp.Set && user(rp.Range) && rp.V > 0 && !l.Builder.Set {
		k.add(diag.Errorf(CodeNotApplicable, rp.Range, "repairs is set, but %s builds nothing: it has no builder role, so no build can fail", name).
			WithDetail("declare a builder role (kind = \"builder\"), or remove repairs"))
	}
}

// evolutionApplies refuses the evolution fields whose mechanism the loop
// lacks: verify_routed without a routing screen, diverse_programs without
// an archive, ideas_per_round without a screen, migration_rate without
// migrations.
func (k *checker) evolutionApplies(l *spec.Loop, name string, user func(diag.Range) bool) {
	if vr := l.VerifyRouted; vr.Set && vr.V && user(vr.Range) && (!l.Screen.Set || !critRoutes(k.x.critics[l.Screen.Name])) {
		k.add(diag.Errorf(CodeNotApplicable, vr.Range, "verify_routed is set, but %s has no screen critic that routes (a route formula, a threshold, or tie = \"route\")", name).
			WithDetail("screen the loop with a critic that has threshold = 0.25, or remove verify_routed"))
	}
	if dp := l.DiversePrograms; dp.Set && user(dp.Range) && dp.V > 0 && len(archiveFeatures(l)) == 0 {
		k.add(diag.Errorf(CodeNotApplicable, dp.Range, "diverse_programs is set, but %s keeps no MAP-Elites archive to draw them from", name).
			WithDetail("write feature_bins = { complexity = 10, diversity = 10 }, or remove diverse_programs"))
	}
	if id := l.Ideas; id.Set && user(id.Range) && !l.Screen.Set && id.V != l.Verifications.V {
		k.add(diag.Errorf(CodeNotApplicable, id.Range, "ideas_per_round = %d is set, but %s has no screen to choose among ideas: it makes only the %d it verifies (verifications_per_round)", id.V, name, l.Verifications.V).
			WithDetail("remove ideas_per_round (vanilla OpenEvolve, the papers' None arm, generates the ideas it verifies), or screen the loop with a critic that picks the verified ones"))
	}
	if mr := l.MigrationRate; mr.Set && user(mr.Range) && (!l.MigrationEvery.Set || l.Islands.V < 2) {
		k.add(diag.Errorf(CodeNotApplicable, mr.Range, "migration_rate is set, but %s never migrates: it needs migration_every and at least two islands", name).
			WithDetail("write migration_every = 4 (with islands = 3), or remove migration_rate"))
	}
}
