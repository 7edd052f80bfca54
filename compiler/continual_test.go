package compiler

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// The full-scale continual critic makes, in each of 29 tasks of 10
// rounds, adapting from the trained critic (scope task), an SDFT update
// before every round but the first and a T-GRPO update before every
// second one: at most 29 x 9 = 261 and 29 x 4 = 116, none at least (with
// scope loop, rounds counted across the tasks: 289 and 144); its
// teacher's and critic's calls are the evolution phase's (the critic's
// own critique of each SDFT pair among them), and the estimate prices the
// updates. enabled = false plans none of it.
func TestContinualLowersAndPrices(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/critic-continual.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v := p.Variants[0]
	cc := continualOf(v)
	if cc == nil || cc.Training.Role != "critic" || cc.Training.Teacher != "teacher" || cc.Training.Labels != "3way" || cc.GRPOPairs != 6 || cc.SDFTPairs != 3 {
		t.Fatalf("continual %+v", cc)
	}
	sft, grpo := cc.Training.SFT, cc.Training.GRPO
	if cc.Scope != plan.ContinualTask || sft.Updates != (plan.Count{Low: 0, Expected: 261, High: 261}) || grpo.Updates != (plan.Count{Low: 0, Expected: 116, High: 116}) || grpo.Group != 16 || sft.GPUHours != 0.4 {
		t.Fatalf("updates: scope %q, sft %+v, grpo %+v", cc.Scope, sft, grpo)
	}
	checkSchedule(t, cc, 261+116)
	var evo *plan.Phase
	for _, ph := range v.Phases {
		if ph.Kind == plan.PhaseEvolution {
			evo = ph
		}
	}
	if got := evo.Calls.LLM["teacher"]; got != (plan.Count{Low: 0, Expected: 783, High: 783}) {
		t.Errorf("teacher calls in the evolution %+v, want 0 to 261 x 3", got)
	}
	r := estimate.Estimate(p)
	if u := r.CriticUpdates["evolve.continual.grpo"]; u == nil || !near(u.GPUHours, plan.Count{Low: 0, Expected: 116 * 0.4, High: 116 * 0.4}) || u.USD.High != 116*0.4*v.Prices["H100"] {
		t.Errorf("T-GRPO updates %+v", u)
	}

	continualAcrossTasks(t, evo)

	// The frozen arm: the block with enabled = false alone (its other
	// fields would take no effect, and are refused).
	s := loadSpec(t, "../specs/critic-continual.hcl")
	s.Loops[0].Continual = &spec.CriticContinual{Enabled: spec.Val[bool]{V: false, Set: true}, Range: s.Loops[0].Continual.Range}
	frozen, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	fv := frozen.Variants[0]
	if continualOf(fv) != nil {
		t.Errorf("the frozen arm adapts its critic: %+v", continualOf(fv))
	}
	for _, ph := range fv.Phases {
		if ph.Kind == plan.PhaseEvolution && !ph.Calls.LLM["teacher"].IsZero() {
			t.Errorf("the frozen arm calls the teacher in the loop: %+v", ph.Calls.LLM["teacher"])
		}
		if ph.Kind == plan.PhaseEvolution && ph.Calls.LLM["critic"].High >= evo.Calls.LLM["critic"].High {
			t.Errorf("the frozen arm's critic calls %+v are not below the continual arm's %+v", ph.Calls.LLM["critic"], evo.Calls.LLM["critic"])
		}
	}
}

// continualAcrossTasks: with scope loop, one adapter across the tasks,
// rounds count across them (29 x 10 - 1 update rounds), and the critic's
// calls in the evolution are those of evo (scope task's) and the more
// updates' (289 - 261 SDFT of 3 pairs, 144 - 116 T-GRPO of 6 x 16).
func continualAcrossTasks(t *testing.T, evo *plan.Phase) {
	t.Helper()
	s := loadSpec(t, "../specs/critic-continual.hcl")
	s.Loops[0].Continual.Scope = spec.Of(plan.ContinualLoop, s.Loops[0].Continual.Range)
	across, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	if ac := continualOf(across.Variants[0]).Training; ac.SFT.Updates.High != 289 || ac.GRPO.Updates.High != 144 {
		t.Errorf("scope loop: sft %+v, grpo %+v, want 289 and 144", ac.SFT.Updates, ac.GRPO.Updates)
	}
	var acEvo *plan.Phase
	for _, ph := range across.Variants[0].Phases {
		if ph.Kind == plan.PhaseEvolution {
			acEvo = ph
		}
	}
	if d := acEvo.Calls.LLM["critic"].High - evo.Calls.LLM["critic"].High; d != 28*3+28*6*16 {
		t.Errorf("scope loop adds %v critic calls, want %d", d, 28*3+28*6*16)
	}

}

// What a continual block cannot do is refused at the field.
func TestContinualRefusals(t *testing.T) {
	at := diag.Range{Filename: "t.hcl", Start: diag.Pos{Line: 1, Column: 1}}
	cc := func(s *spec.Spec) *spec.CriticContinual { return s.Loops[0].Continual }
	cases := []struct {
		name string
		edit func(s *spec.Spec)
		code string
	}{
		{"no screen", func(s *spec.Spec) { s.Loops[0].Screen = spec.Ref{} }, CodeNotApplicable},
		{"5-way SDFT", func(s *spec.Spec) {
			for _, c := range s.Critics {
				c.Labels = spec.Of("5way", at)
			}
		}, CodeNotApplicable},
		{"nothing trained", func(s *spec.Spec) {
			cc(s).GRPOEvery, cc(s).SDFTEvery = spec.Of(0, at), spec.Of(0, at)
			cc(s).GRPOPairs, cc(s).Group, cc(s).SDFTPairs, cc(s).Teacher = spec.Val[int]{}, spec.Val[int]{}, spec.Val[int]{}, spec.Ref{}
		}, CodeMissing},
		{"pairs of an update turned off", func(s *spec.Spec) { cc(s).GRPOEvery = spec.Of(0, at) }, CodeNotApplicable},
		{"no teacher", func(s *spec.Spec) { cc(s).Teacher = spec.Ref{} }, CodeMissing},
		{"teacher of another kind", func(s *spec.Spec) { cc(s).Teacher.Name = "proposer" }, CodeRefKind},
		{"group of one", func(s *spec.Spec) { cc(s).Group = spec.Of(1, at) }, CodeRange},
		{"negative every", func(s *spec.Spec) { cc(s).SDFTEvery = spec.Of(-1, at) }, CodeRange},
		{"scope of a frozen critic", func(s *spec.Spec) {
			*cc(s) = spec.CriticContinual{Enabled: spec.Of(false, at), Scope: spec.Of(plan.ContinualTask, at), Range: cc(s).Range}
		}, CodeNotApplicable},
		{"unpriced GPU", func(s *spec.Spec) { cc(s).GPU = spec.Of("TPU9", at) }, CodePriceMissing},
		{"offline critic, a trainer", func(s *spec.Spec) { offlineCritic(s, at) }, CodeCriticTrainer},
		{"gpu without trainer", func(s *spec.Spec) {
			offlineCritic(s, at)
			cc(s).Trainer = spec.Ref{}
		}, CodeNotApplicable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, "../specs/critic-continual.hcl", c.edit, c.code) })
	}
}

// proveContinualEnabled: enabled = false, alone in its block, plans no
// continual critic where the same block enabled plans one. (The generic
// walk cannot show it: turning a written block off refuses its other
// fields, which take no effect in a frozen block.)
func proveContinualEnabled(t *testing.T) {
	plans := map[bool]*plan.Plan{}
	for _, on := range []bool{true, false} {
		s := loadSpec(t, "../specs/critic-continual.hcl")
		if !on {
			old := s.Loops[0].Continual
			s.Loops[0].Continual = &spec.CriticContinual{Enabled: spec.Val[bool]{V: false, Set: true, Range: old.Enabled.Range}, Range: old.Range}
		}
		p, ds := Compile(s, Options{})
		if ds.HasErrors() {
			t.Fatalf("enabled = %v: %v", on, ds.Err())
		}
		plans[on] = p
	}
	if continualOf(plans[true].Variants[0]) == nil || continualOf(plans[false].Variants[0]) != nil || plans[true].Hash == plans[false].Hash {
		t.Errorf("enabled does not decide the continual critic: on %+v, off %+v", continualOf(plans[true].Variants[0]), continualOf(plans[false].Variants[0]))
	}
}

// checkSchedule checks a continual critic's schedule with scope task,
// SDFT every round and T-GRPO every 2: n updates; each task's from its
// round 1, SDFT before T-GRPO where both fall before one round, keyed by
// the round counted across the tasks; the first task's first three.
func checkSchedule(t *testing.T, cc *plan.CriticContinual, n int) {
	t.Helper()
	if len(cc.Updates) != n {
		t.Fatalf("the schedule lists %d updates, want %d", len(cc.Updates), n)
	}
	first := cc.Updates[0].Task
	want := []plan.ContinualUpdate{{Task: first, Round: 1, Key: 1, Kind: plan.UpdateSDFT}, {Task: first, Round: 2, Key: 2, Kind: plan.UpdateSDFT}, {Task: first, Round: 2, Key: 2, Kind: plan.UpdateGRPO}}
	for i, w := range want {
		if cc.Updates[i] != w {
			t.Errorf("update %d = %+v, want %+v", i, cc.Updates[i], w)
		}
	}
	rounds := 0
	for _, u := range cc.Updates {
		if u.Task == first {
			rounds = max(rounds, u.Round+1)
		}
	}
	tasks := map[plan.TaskRef]int{}
	for _, u := range cc.Updates {
		if u.Round < 1 || (u.Kind == plan.UpdateGRPO && u.Round%2 != 0) {
			t.Errorf("update %+v is not due: SDFT every round from 1, T-GRPO every 2", u)
		}
		if _, ok := tasks[u.Task]; !ok {
			tasks[u.Task] = len(tasks)
		}
		if u.Key != tasks[u.Task]*rounds+u.Round {
			t.Errorf("update %+v: key %d, want task %d x %d rounds + %d", u, u.Key, tasks[u.Task], rounds, u.Round)
		}
	}
}

// A schedule longer than the plan may list is refused at the continual
// block: 29 tasks of 1,000 rounds make 28,971 SDFT updates.
func TestContinualScheduleBounded(t *testing.T) {
	s := loadSpec(t, "../specs/critic-continual.hcl")
	s.Loops[0].Rounds = spec.Of(1000, s.Loops[0].Rounds.Range)
	_, ds := Compile(s, Options{})
	var found bool
	for _, d := range ds {
		if d.Code == CodeRange && strings.Contains(d.Summary, "more than 10000") && d.Range == s.Loops[0].Continual.Range {
			found = true
		}
	}
	if !found {
		t.Errorf("a schedule of 28,971 updates was not refused at the continual block:\n%s", ds.Format(0))
	}
}
