package compiler

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
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
// table, so it is the single place a default is declared: an entry fills
// the spec (apply), or documents a default that a pass decides (apply nil),
// or is the doc of a lowered default (below) that the lowering reads.
var Defaults = []Default{
	{"name", "the first file's name without its extension (\"experiment\" for a spec of no file)", "a plan and its runs are named after the spec they come from", nil}, // lowered by planName
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
	ctSamples.doc(), ctRevisions.doc(), ctGuide.doc(),
	ctSFTAdapter.doc(), ctSFTLR.doc(), ctSFTEpochs.doc(),
	ctGRPOAdapter.doc(), ctGroup.doc(), ctKL.doc(), ctGRPOLR.doc(), ctWeightDecay.doc(), ctMinImproving.doc(),
	{"critic_eval.*.critics", "every critic of the spec", "critics are compared side by side on the same pairs", nil}, // lowered by evalCriticsOf
	ceSplit.doc(), ceThresholds.doc(), ceMinImproving.doc(),
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
	updateAdapter.doc(), evoChildren.doc(),
	ccEnabled.doc(), ccScope.doc(), ccGRPOEvery.doc(), ccGRPOPairs.doc(), ccGroup.doc(), ccSDFTEvery.doc(), ccSDFTPairs.doc(),
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
	sourceRevision.doc(), sourceRepairs.doc(),
	// Lowered, not filled: the plan's baselines phase measures it.
	{"environment.*.baseline, environment.*.task.*.baseline", "measured: one real run per task, in the baselines phase", "every gain is measured against b_e; without a declared one or a benchmark plugin that supplies it, a run of the unedited reference configuration measures it first, for each task of a split that gets real runs (or whose reward formula reads baseline), and the estimate and the budget count those runs", nil},
	{"sweep.mode", "\"grid\"", "every combination of the axes", func(s *spec.Spec) {
		if s.Sweep != nil {
			setDefault(&s.Sweep.Mode, "grid")
		}
	}},
}

// Lowered defaults are read by the lowering, where it builds the plan
// (d.of(field)), rather than filled into the spec: filled, such a field
// would look set to the checks that refuse a field where it takes no
// effect (a critic_training's samples without sft, a continual block's
// grpo_pairs when grpo_every = 0). Each is declared once, here, and listed
// in Defaults; TestLoweredDefaultsListed checks that none is left out.
var (
	// The critics paper's figures for a critic_training block (seed 002,
	// section 2.3 and appendix G).
	ctSamples      = lowered[int]{"critic_training.*.samples", 8, "the paper's Sampled stratum: the teacher's critiques per pair without the label"}
	ctRevisions    = lowered[int]{"critic_training.*.revisions", 8, "the paper's Revised stratum: critiques written again, told the wrong verdict, when no sample matched"}
	ctGuide        = lowered[bool]{"critic_training.*.guide", true, "the paper's Guided stratum: a pair no revision matched still gets a critique, written knowing the label"}
	ctSFTLR        = lowered[float64]{"critic_training.*.sft.learning_rate", 1e-5, "the paper's SFT learning rate (a continual block's SDFT updates use it too)"}
	ctSFTEpochs    = lowered[int]{"critic_training.*.sft.epochs", 3, "the paper's passes over the kept critiques"}
	ctGroup        = lowered[int]{"critic_training.*.grpo.group", 8, "the paper's verdicts per pair, the group GRPO's advantages are relative to"}
	ctKL           = lowered[float64]{"critic_training.*.grpo.kl_coef", 0.01, "the paper's KL penalty toward the SFT critic (a continual block's T-GRPO updates use it too)"}
	ctGRPOLR       = lowered[float64]{"critic_training.*.grpo.learning_rate", 1e-6, "the paper's GRPO learning rate (a continual block's T-GRPO updates use it too)"}
	ctWeightDecay  = lowered[float64]{"critic_training.*.grpo.weight_decay", 0.1, "the paper's decoupled weight decay (a continual block's T-GRPO updates use it too)"}
	ctSFTAdapter   = named{"critic_training.*.sft.adapter", "the block's name", "-sft", "each training's adapter has a name of its own"}
	ctMinImproving = lowered[int]{"critic_training.*.min_improving_children", 0, "every pair of the file is used; 3 is the paper's filter, asked for"}
	ctGRPOAdapter  = named{"critic_training.*.grpo.adapter", "the block's name", "-grpo", "each training's adapters have a prefix of their own"}

	ceSplit        = lowered[string]{"critic_eval.*.split", "all", "every pair of the file is judged"}
	ceMinImproving = lowered[int]{"critic_eval.*.min_improving_children", 0, "every pair of the file may be judged; 3 is the paper's filter, asked for"}
	ceThresholds   = lowered[[]float64]{"critic_eval.*.thresholds", []float64{0.1, 0.25, 0.5}, "a strict, a middle and a generous routing threshold"}

	evoChildren = lowered[int]{"loop.*.children_per_parent", 0, "no pair collection's second stage: the loop's rounds alone"}

	updateAdapter = named{"loop.*.update.adapter", "the loop's name", "", "each loop's adapters have a prefix of their own"}

	// The critics paper's test-time continual learning (seed 002): T-GRPO
	// every 2 rounds on 6 new pairs with 16 rollouts, SDFT every round on
	// 3 new pairs.
	ccEnabled   = lowered[bool]{"loop.*.continual.enabled", true, "a continual block adapts the critic; enabled = false is the frozen arm of an ablation"}
	ccScope     = lowered[string]{"loop.*.continual.scope", plan.ContinualTask, "the paper's: each task adapts from the critic as the loop found it"}
	ccGRPOEvery = lowered[int]{"loop.*.continual.grpo_every", 2, "the paper's rounds between T-GRPO updates"}
	ccGRPOPairs = lowered[int]{"loop.*.continual.grpo_pairs", 6, "the paper's newest pairs per T-GRPO update"}
	ccGroup     = lowered[int]{"loop.*.continual.group", 16, "the paper's rollouts per pair in a T-GRPO update"}
	ccSDFTEvery = lowered[int]{"loop.*.continual.sdft_every", 1, "the paper's rounds between SDFT updates"}
	ccSDFTPairs = lowered[int]{"loop.*.continual.sdft_pairs", 3, "the paper's newest pairs per SDFT update"}

	sourceRevision = lowered[string]{"environment.*.source.revision, environment.*.task.*.source.revision", "HEAD", "the seed program as the repository has it; the commit it names is journaled when a run starts"}
	sourceRepairs  = lowered[int]{"environment.*.source.repairs, environment.*.task.*.source.repairs", 2, "a candidate's own error (a patch that does not apply, a failed build or run) gets two tries at a fix before it is final"}
)

// lowered is a default the lowering reads: v, when the field is unset.
type lowered[T any] struct {
	path string
	v    T
	why  string
}

// of is the field's value, or the default when it is unset.
func (d lowered[T]) of(f spec.Val[T]) T { return f.Or(d.v) }

func (d lowered[T]) doc() Default { return Default{Path: d.path, Value: docValue(d.v), Why: d.why} }

// named is a default name derived from its block's: the block's name and
// suffix, when the field is unset or empty; base says which block's name.
type named struct {
	path, base, suffix, why string
}

func (d named) of(f spec.Val[string], block string) string {
	if f.Set && f.V != "" {
		return f.V
	}
	return block + d.suffix
}

func (d named) doc() Default {
	v := d.base
	if d.suffix != "" {
		v += " and " + strconv.Quote(d.suffix)
	}
	return Default{Path: d.path, Value: v, Why: d.why}
}

var exponent = regexp.MustCompile(`e([+-])0+(\d)`)

// docValue writes a default as a spec would: strings quoted, numbers in
// their shortest form (1e-5, not 1e-05), lists in brackets.
func docValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case float64:
		return exponent.ReplaceAllString(strconv.FormatFloat(v, 'g', -1, 64), "e$1$2")
	case []float64:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = docValue(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	}
	panic("docValue: no doc form for a default of this type") // a programmer's error: add the type
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
