package compiler

import (
	"testing"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

func loadSpec(t *testing.T, path string) *spec.Spec {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	return s
}

// The full-scale spec's critic training is a phase before the loop that
// counts the teacher's critiques by the paper's strata and the GRPO
// verdicts, and the estimate prices its updates.
func TestCriticTrainingLowersAndPrices(t *testing.T) {
	p, ds := Compile(loadSpec(t, "../specs/critic-train.hcl"), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	v := p.Variants[0]
	// The benchmark gives the baselines: no baselines phase. The trained
	// critic is benched before it screens: 1,500 held-out pairs x 16
	// votes, priced from the spec (the pairs file is the user's).
	if len(v.Phases) != 3 || v.Phases[0].Kind != plan.PhaseCriticTraining || v.Phases[1].Kind != plan.PhaseCriticEval || v.Phases[2].Kind != plan.PhaseEvolution {
		t.Fatalf("%d phases: want critic_training, critic_eval, evolution", len(v.Phases))
	}
	if got := v.Phases[1].Calls.LLM["critic"]; got != plan.Exact(1500*16) {
		t.Errorf("bench critic calls %+v, want 24,000", got)
	}
	ph := v.Phases[0]
	if got, want := ph.Calls.LLM["teacher"], (plan.Count{Low: 88000, Expected: 88000 + 11000*0.555*8 + 11000*0.239, High: 11000 * 17}); !near(got, want) {
		t.Errorf("teacher calls %+v, want %+v", got, want)
	}
	if got := ph.Calls.LLM["critic"]; got != plan.Exact(300*256*8) {
		t.Errorf("critic GRPO calls %+v, want 614,400", got)
	}
	ct := ph.CriticTraining
	if ct.Role != "critic" || ct.Teacher != "teacher" || ct.Labels != "5way" || ct.Split != "train" || ct.Examples != 11000 {
		t.Errorf("critic training %+v", ct)
	}
	g := ct.GRPO
	if g.Group != 8 || g.KLCoef != 0.01 || g.LearningRate != 1e-6 || g.WeightDecay != 0.1 || g.GPUHours != 2 || g.Updates != (plan.Count{Low: 0, Expected: 300, High: 300}) {
		t.Errorf("grpo %+v", g)
	}
	if ct.SFT.Epochs != 3 || ct.SFT.LearningRate != 1e-5 || ct.SFT.GPUHours != 48 {
		t.Errorf("sft %+v", ct.SFT)
	}
	r := estimate.Estimate(p)
	// 870 runs x 0.75 h, SFT 48, GRPO 300 x 2.
	if got := r.Totals.GPUHours; !near(got, plan.Count{Low: 652.5, Expected: 1300.5, High: 1300.5}) {
		t.Errorf("GPU-hours %+v", got)
	}
	if u := r.CriticUpdates["critic.grpo"]; u == nil || u.GPUHours.High != 600 || u.USD.High != 600*v.Prices["H100"] {
		t.Errorf("grpo updates %+v", u)
	}
	if r.Roles["teacher"].USD.High < 187000*(3500*2+1200*12)/1e6-1e-6 {
		t.Errorf("teacher dollars %+v", r.Roles["teacher"].USD)
	}
}

func near(a, b plan.Count) bool {
	d := func(x, y float64) bool { return x-y < 1e-6 && y-x < 1e-6 }
	return d(a.Low, b.Low) && d(a.Expected, b.Expected) && d(a.High, b.High)
}

// What a critic training cannot do is refused at the field.
func TestCriticTrainingRefusals(t *testing.T) {
	at := diag.Range{Filename: "t.hcl", Start: diag.Pos{Line: 1, Column: 1}}
	cases := []struct {
		name string
		edit func(s *spec.Spec)
		code string
	}{
		{"served critic, no trainer", func(s *spec.Spec) { s.CriticTrainings[0].SFT.Trainer = spec.Ref{} }, CodeCriticTrainer},
		{"offline critic, a trainer", func(s *spec.Spec) {
			offlineCritic(s, at)
		}, CodeCriticTrainer},
		{"gpu without trainer", func(s *spec.Spec) {
			s.CriticTrainings[0].GRPO.Trainer = spec.Ref{}
			offlineCritic(s, at)
			s.CriticTrainings[0].SFT = nil
			s.CriticTrainings[0].Teacher, s.CriticTrainings[0].Examples, s.CriticTrainings[0].Samples, s.CriticTrainings[0].Revisions, s.CriticTrainings[0].Guide = spec.Ref{}, spec.Val[int]{}, spec.Val[int]{}, spec.Val[int]{}, spec.Val[bool]{}
		}, CodeNotApplicable},
		{"teacher without sft", func(s *spec.Spec) { s.CriticTrainings[0].SFT = nil }, CodeNotApplicable},
		{"teacher of another kind", func(s *spec.Spec) { s.CriticTrainings[0].Teacher.Name = "proposer" }, CodeRefKind},
		{"group of one", func(s *spec.Spec) { s.CriticTrainings[0].GRPO.Group = spec.Of(1, at) }, CodeRange},
		{"no steps", func(s *spec.Spec) { s.CriticTrainings[0].GRPO.Steps = spec.Val[int]{} }, CodeMissing},
		{"unpriced GPU", func(s *spec.Spec) { s.CriticTrainings[0].SFT.GPU = spec.Of("TPU9", at) }, CodePriceMissing},
		{"votes of a critic only trained", func(s *spec.Spec) {
			// A second critic that only the training uses: no vote is taken.
			solo := *s.Critics[0]
			solo.Name, solo.Votes = "solo", spec.Of(4, at)
			s.Critics = append(s.Critics, &solo)
			s.CriticTrainings[0].Critic = spec.Ref{Kind: "critic", Name: "solo", Set: true, Range: at}
		}, CodeNotApplicable},
		{"nothing trained", func(s *spec.Spec) {
			ct := s.CriticTrainings[0]
			ct.SFT, ct.GRPO = nil, nil
			ct.Teacher, ct.Examples, ct.Samples, ct.Revisions, ct.Guide = spec.Ref{}, spec.Val[int]{}, spec.Val[int]{}, spec.Val[int]{}, spec.Val[bool]{}
		}, CodeMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantPositioned(t, "../specs/critic-train.hcl", c.edit, c.code) })
	}
}

// offlineCritic serves the critic role from a builtin:offline plugin.
func offlineCritic(s *spec.Spec, at diag.Range) {
	s.Plugins = append(s.Plugins, &spec.Plugin{Name: "offline", NameRange: at, Kind: spec.Of("llm", at), Source: spec.Of("builtin:offline", at)})
	for _, r := range s.Roles {
		if r.Name == "critic" {
			r.LLM = spec.Ref{Kind: "plugin", Name: "offline", Set: true, Range: at}
		}
	}
}
