package compiler

import (
	"slices"

	"github.com/assay-lang/assay/lang/spec"
)

// Default is one documented default: the field it fills (a path with "*" for
// any block label), the value it takes when unset, and why that value.
type Default struct {
	Path  string
	Value string
	Why   string
	apply func(s *spec.Spec)
}

// Defaults is the complete list of values the compiler fills in. Any other
// field that is required and unset is an E_MISSING error. Docs print this
// table, so it is the single place a default is declared.
var Defaults = []Default{
	{"seed", "0", "a run is reproducible even when no seed is given", func(s *spec.Spec) {
		setDefault(&s.Seed, 0)
	}},
	{"role.*.kind", "the role's name, when that is a kind", "role \"rwm\" { ... } needs no kind = \"rwm\"", func(s *spec.Spec) {
		for _, r := range s.Roles {
			if !r.Kind.Set && isRoleKind(r.Name) {
				r.Kind = spec.Val[string]{V: r.Name, Set: true, Range: r.NameRange}
			}
		}
	}},
	{"role.*.temperature", "1.0", "the model's own sampling distribution", func(s *spec.Spec) {
		for _, r := range s.Roles {
			setDefault(&r.Temperature, 1.0)
		}
	}},
	{"role.*.concurrency", "1", "one call in flight unless more are allowed", func(s *spec.Spec) {
		for _, r := range s.Roles {
			setDefault(&r.Concurrency, 1)
		}
	}},
	{"reward.*.normalize", "\"scale\"", "gain is divided by the task's scale tau_e, as in LM2LM", func(s *spec.Spec) {
		for _, r := range s.Rewards {
			setDefault(&r.Normalize, "scale")
		}
	}},
	// Filled by bind, which knows the roles and loops.
	{"loop.*.proposer, records.proposer, evaluation.proposer", "the only role of kind proposer", "a spec with one proposer need not name it; with several, each block names its own", nil},
	{"loop.*.builder, loop.*.summarizer, records.builder, evaluation.builder", "the only role of that kind, if any", "a spec with one builder (or summarizer) need not name it", nil},
	{"reward.*.predictor (source predicted)", "the only role of kind rwm", "a spec with one world model need not name it", nil},
	{"reward.*.predictor (source critic)", "the critic that screens the loop", "one critic judges a candidate: the screen labels it", nil},
	{"reward.*.repeat_penalty", "0", "a repeated proposal gets its group's lowest valid reward", nil}, // lowered as 0 when unset
	{"reward.*.diversity.by", "\"mechanism\"", "proposals are alike when they share a mechanism direction, the only grouping there is", func(s *spec.Spec) {
		for _, r := range s.Rewards {
			if r.Diversity != nil {
				setDefault(&r.Diversity.By, "mechanism")
			}
		}
	}},
	{"critic.*.labels", "\"3way\"", "improve / tie / lose", func(s *spec.Spec) {
		for _, c := range s.Critics {
			setDefault(&c.Labels, "3way")
		}
	}},
	{"critic.*.aggregate", "\"majority\"", "the majority verdict of the k votes", func(s *spec.Spec) {
		for _, c := range s.Critics {
			setDefault(&c.Aggregate, "majority")
		}
	}},
	// Lowered, not filled: E_TIE_RULE still asks for a rule where an even k
	// can tie under majority aggregation.
	{"critic.*.tie", "\"route\" when the critic has a route formula, else \"lose\"", "a tied vote is the most uncertain verdict: a critic that routes sends it to a real run; one that does not counts it as the worse label", nil},
	{"critic.*.route", "\"uncertainty >= threshold\"", "route uncertain candidates to a real run; only when threshold is set", func(s *spec.Spec) {
		for _, c := range s.Critics {
			if c.Threshold.Set {
				setDefault(&c.Route, "uncertainty >= threshold")
			}
		}
	}},
	{"critic.*.expected_routed", "one number e means { low = e, expected = e, high = 1 }", "at worst every candidate is routed", nil},
	{"role.*.build_failures", "0; one number f means { low = f, expected = f, high = f }", "a builder's builds succeed unless the spec says otherwise", nil},
	{"loop.*.rollout_every", "1", "a fresh rollout every step", func(s *spec.Spec) {
		for _, l := range s.Loops {
			if l.Kind.V == "rl" {
				setDefault(&l.RolloutEvery, 1)
			}
		}
	}},
	{"loop.*.zero_variance", "\"drop\"", "groups with equal rewards carry no advantage", func(s *spec.Spec) {
		for _, l := range s.Loops {
			if l.Kind.V == "rl" {
				setDefault(&l.ZeroVariance, "drop")
			}
		}
	}},
	{"loop.*.select", "\"best_mean_rank\" with a screen, \"random\" without", "a critic ranks ideas and evolution verifies the best-ranked; without one, nothing ranks them", func(s *spec.Spec) {
		for _, l := range s.Loops {
			if l.Kind.V == "evolution" {
				if l.Screen.Set {
					setDefault(&l.Select, "best_mean_rank")
				} else {
					setDefault(&l.Select, "random")
				}
			}
		}
	}},
	{"loop.*.new_parent", "\"never\" (RL loops judged by a critic or a real run)", "each task's parent stays its seed program unless the spec asks for the papers' all-Improve rule", nil}, // lowered
	{"loop.*.repairs", "0", "a failed build is final unless the spec allows repairs", nil},                                                                                                 // lowered
	{"loop.*.migration_rate", "0.1, when migration_every is set", "OpenEvolve's rate: a tenth of an island's programs (at least one) migrate", func(s *spec.Spec) {
		for _, l := range s.Loops {
			if l.Kind.V == "evolution" && l.MigrationEvery.Set && l.Islands.V > 1 {
				setDefault(&l.MigrationRate, 0.1)
			}
		}
	}},
	{"loop.*.top_programs, loop.*.diverse_programs", "0", "the proposer sees its parent alone unless the spec asks for inspirations", nil}, // lowered
	{"loop.*.feature_bins", "none: no MAP-Elites archive", "an island keeps its verified programs; an archive is asked for by its dimensions", nil},
	// Lowered: the plan's ideas per round (ideasPerRound).
	{"loop.*.ideas_per_round", "verifications_per_round, in a loop without a screen (a preset's value too)", "nothing chooses among ideas without a critic: the loop makes only those it verifies, as vanilla OpenEvolve", nil},
	{"loop.*.split", "\"train\"", "loops search on train tasks; holdout is for evaluation", func(s *spec.Spec) {
		for _, l := range s.Loops {
			setDefault(&l.Split, "train")
		}
	}},
	{"records.select", "\"random\"", "seed proposals are sampled at random", func(s *spec.Spec) {
		if s.Records != nil {
			setDefault(&s.Records.Select, "random")
		}
	}},
	{"calibration.loop", "the only RL loop", "a spec with one RL loop need not name it", nil}, // filled by resolve, which knows the loops
	{"calibration.select", "\"top_rated\"", "run the proposals the world model rates highest", func(s *spec.Spec) {
		if s.Calibration != nil {
			setDefault(&s.Calibration.Select, "top_rated")
		}
	}},
	{"evaluation.split", "\"holdout\"", "evaluate on tasks the loop never saw", func(s *spec.Spec) {
		if s.Evaluation != nil {
			setDefault(&s.Evaluation.Split, "holdout")
		}
	}},
	{"evaluation.states", "1", "one research state per task", func(s *spec.Spec) {
		if s.Evaluation != nil {
			setDefault(&s.Evaluation.States, 1)
		}
	}},
	{"evaluation.normalize", "\"scale\" when every evaluated task has a scale (declared, or from a benchmark), else \"none\"", "gains over tau_e compare across tasks and environments, as both papers report them; without scales there is nothing to divide by", func(s *spec.Spec) {
		if s.Evaluation != nil {
			if evaluatedScales(s) {
				setDefault(&s.Evaluation.Normalize, "scale")
			} else {
				setDefault(&s.Evaluation.Normalize, "none")
			}
		}
	}},
	{"executor", "kind \"local\", concurrency 1", "one real run at a time on this machine", func(s *spec.Spec) {
		if s.Executor == nil {
			s.Executor = &spec.Executor{}
		}
		setDefault(&s.Executor.Kind, "local")
		setDefault(&s.Executor.Concurrency, 1)
	}},
	{"environment.*.run_cost.gpus", "1, when gpu_hours is given", "gpu_hours alone describes a one-GPU run", func(s *spec.Spec) {
		for _, e := range s.Environments {
			if e.RunCost != nil && e.RunCost.GPUHours.Set && !e.RunCost.GPUs.Set {
				e.RunCost.GPUs = spec.Val[int]{V: 1, Set: true, Range: e.RunCost.GPUHours.Range}
			}
		}
	}},
	{"environment.*.tasks.train, environment.*.tasks.holdout", "0", "a split that is not counted has no tasks", nil},
	// Lowered, not filled: the plan's baselines phase measures it.
	{"environment.*.baseline, environment.*.task.*.baseline", "measured: one real run per task, in the baselines phase", "every gain is measured against b_e; without a declared one or a benchmark plugin that supplies it, a run of the unedited reference configuration measures it first, for each task of a split that gets real runs (or whose reward formula reads baseline), and the estimate and the budget count those runs", nil},
	{"sweep.mode", "\"grid\"", "every combination of the axes", func(s *spec.Spec) {
		if s.Sweep != nil {
			setDefault(&s.Sweep.Mode, "grid")
		}
	}},
}

// setDefault fills v when unset. The range stays empty: a default has no
// source text, and diagnostics about it point at the enclosing block.
func setDefault[T any](v *spec.Val[T], def T) {
	if !v.Set {
		v.V, v.Set = def, true
	}
}

var roleKinds = []string{"proposer", "rwm", "builder", "implementer", "summarizer", "critic"}

func isRoleKind(s string) bool { return slices.Contains(roleKinds, s) }

func applyDefaults(c *compilation) {
	for _, d := range Defaults {
		if d.apply != nil {
			d.apply(c.spec)
		}
	}
}
