package compiler

// Diagnostic codes of the compiler. They are stable: scripts and docs refer
// to them.
const (
	CodeMissing          = "E_MISSING"
	CodeEnum             = "E_ENUM"
	CodeRange            = "E_RANGE"
	CodeConflict         = "E_CONFLICT"
	CodeDuplicate        = "E_DUPLICATE"
	CodeUnknownRef       = "E_UNKNOWN_REF"
	CodeRefKind          = "E_REF_KIND"
	CodeClip             = "E_CLIP"
	CodeThreshold        = "E_THRESHOLD"
	CodeVotes            = "E_VOTES"
	CodeTieRule          = "E_TIE_RULE"
	CodeCalSteps         = "E_CALIBRATION_STEPS"
	CodeCalBudget        = "E_CALIBRATION_BUDGET"
	CodeCalLoop          = "E_CALIBRATION_LOOP"
	CodeBudgetFit        = "E_BUDGET_FIT"
	CodeSplitOverlap     = "E_SPLIT_OVERLAP"
	CodeScaleMissing     = "E_SCALE_MISSING"
	CodePriceMissing     = "E_PRICE_MISSING"
	CodeLoopField        = "E_LOOP_FIELD"
	CodeUntilBudget      = "E_UNTIL_BUDGET"
	CodeExpectedRouted   = "E_EXPECTED_ROUTED"
	CodeScreenRole       = "E_SCREEN_ROLE"
	CodePredictorRole    = "E_PREDICTOR_ROLE"
	CodeExecutorGPUs     = "E_EXECUTOR_GPUS"
	CodeSweepPath        = "E_SWEEP_PATH"
	CodeSweepValue       = "E_SWEEP_VALUE"
	CodeSweepShape       = "E_SWEEP_SHAPE"
	CodeSetSyntax        = "E_SET_SYNTAX"
	CodeSetPath          = "E_SET_PATH"
	CodeSetValue         = "E_SET_VALUE"
	CodeSetRouted        = "W_SET_ROUTED"
	CodeFormula          = "E_FORMULA"
	CodeLLMUnpriced      = "W_LLM_UNPRICED"
	CodeCalibrationSkips = "W_CALIBRATION_UNUSED"
	CodeCalMidRollout    = "W_CALIBRATION_MID_ROLLOUT"
	CodeSweepRouted      = "W_SWEEP_ROUTED"
	CodeVariantsIgnore   = "W_VARIANTS_IGNORE"
	CodeExtendsUnloaded  = "E_EXTENDS_UNLOADED"
	CodeNotApplicable    = "E_NOT_APPLICABLE"
	CodePolicyFixed      = "W_POLICY_FIXED"
	CodeCriticTrainer    = "E_CRITIC_TRAINER"
	// CodeSource: a source block's field is malformed (an empty build
	// argument, an editable path outside the repository).
	CodeSource = "E_SOURCE"
	// CodeSourceRepo: a source's repository is not a git repository, or
	// its revision names no commit.
	CodeSourceRepo = "E_SOURCE_REPO"
	// CodeSourceImport: a source's directory to import cannot be imported
	// (too large, a symlink out of it, a file that is not regular).
	CodeSourceImport = "E_SOURCE_IMPORT"
	// CodeSourceKnobs: the trainer of a source-mode environment carries
	// knobs, or something else that knob mode alone reads.
	CodeSourceKnobs = "E_SOURCE_KNOBS"
	// CodeUnbounded: nothing bounds a figure of the estimate from above.
	CodeUnbounded = "W_UNBOUNDED"
	// CodeICLRecords: the in-context arm asks for more records than the
	// run's real runs before the evaluation can make.
	CodeICLRecords    = "W_ICL_RECORDS"
	CodeRoleAmbiguous = "E_ROLE_AMBIGUOUS"
	// CodePluginConfig: a built-in plugin's config does not fit its schema
	// in package stdlib/pluginconfig.
	CodePluginConfig = "E_PLUGIN_CONFIG"

	// Fields set where they have no effect (see applies.go).
	CodeUnscreened      = "E_UNSCREENED"
	CodeClipUnused      = "E_CLIP_UNUSED"
	CodeNormalizeUnused = "E_NORMALIZE_UNUSED"
	CodeDiversityUnused = "E_DIVERSITY_UNUSED"
	CodeTieUnused       = "E_TIE_UNUSED"
	CodeThresholdUnused = "E_THRESHOLD_UNUSED"
	CodeSlurmLocal      = "E_SLURM_LOCAL"
	CodeShadowed        = "E_SHADOWED"
	CodePresetUnused    = "E_PRESET_UNUSED"
	CodeUnusedBlock     = "E_UNUSED_BLOCK"
	CodeNameChars       = "E_NAME_CHARS"
	CodeTooLarge        = "E_TOO_LARGE"
	CodeNothingToDo     = "E_NOTHING_TO_DO"
	CodeSuiteTrainer    = "E_SUITE_TRAINER"
	CodeSuiteUnfilled   = "E_SUITE_UNFILLED"
	CodeUnsupplied      = "E_UNSUPPLIED"
	CodePrompt          = "E_PROMPT"
	CodeAnswerPattern   = "E_ANSWER_PATTERN"
)

// Code documents one diagnostic code.
type Code struct {
	Code, Meaning string
}

// Codes lists every compiler diagnostic code with its meaning, for docs.
var Codes = []Code{
	{CodeMissing, "a required field is missing; the message says what to write"},
	{CodeEnum, "a value is not one of the allowed words"},
	{CodeRange, "a number is outside its allowed range"},
	{CodeConflict, "two fields that exclude each other are both set"},
	{CodeDuplicate, "two blocks of the same kind share a name"},
	{CodeUnknownRef, "a reference names a block that does not exist"},
	{CodeRefKind, "a reference points at a block of the wrong kind"},
	{CodeClip, "reward clip c must be greater than 0"},
	{CodeThreshold, "a critic threshold must lie in [0, 1)"},
	{CodeVotes, "critic votes k must be at least 1"},
	{CodeTieRule, "an even number of votes with majority aggregation needs a tie rule"},
	{CodeCalSteps, "calibration after_steps must be strictly increasing and within [1, loop steps)"},
	{CodeCalBudget, "calibration budget must have one entry or one per after_steps entry"},
	{CodeCalLoop, "calibration needs an RL loop whose reward a world model predicts"},
	{CodeBudgetFit, "baseline, seed, calibration and evaluation runs exceed budget.real_runs; or budget.usd or budget.gpu_hours cannot fund what a phase may spend at its high figures once the phases before it keep their low figures"},
	{CodeSplitOverlap, "a task is listed in both the train and the holdout split"},
	{CodeScaleMissing, "a task has no reward scale although its reward normalises by scale"},
	{CodePriceMissing, "a GPU type has no price"},
	{CodeLoopField, "a loop lacks a field its kind needs, or sets one of the other kind"},
	{CodeUntilBudget, "until_budget cannot be solved: no real-run cap, no real runs per step, or no step fits"},
	{CodeExpectedRouted, "expected_routed outside [0, 1], or its expected figure 0 on a critic that routes in an RL loop (expected_routed = 0 is allowed on a critic no RL loop screens with)"},
	{CodeScreenRole, "a critic's role is not of kind critic"},
	{CodePredictorRole, "a predicted reward's predictor is not a role of kind rwm"},
	{CodeExecutorGPUs, "the executor has fewer GPUs than one run needs"},
	{CodeSweepPath, "a sweep axis names no sweepable field"},
	{CodeSweepValue, "a sweep value does not fit its field"},
	{CodeSweepShape, "zip axes have different lengths, or a sweep has no axes"},
	{CodeSetSyntax, "a --set argument is not PATH=VALUE"},
	{CodeSetPath, "a --set path names no field or map entry, names a swept, sweep or variable field, or is set twice; or V1,V2,... sweeps a field a sweep cannot"},
	{CodeSetValue, "a --set value does not parse, or does not fit its field's type or allowed values; the column points inside the value"},
	{CodeFormula, "a formula does not parse or type-check"},
	{CodeTooLarge, "a spec asks for more than any run can do: more tasks than a plan holds, a count past a billion, a product of counts the runtime holds at once past its limit, a loop whose whole run makes more than its limit, or a sweep past its variant limit"},
	{CodePrompt, "a role's prompt template does not parse, or reads a variable its role kind does not have (see docs/prompts.md)"},
	{CodeAnswerPattern, "a role's answer pattern does not compile as an RE2 regular expression, has no capture group, or is over 512 bytes"},
	{CodeNothingToDo, "the spec declares no loop, no evaluation, no critic_eval and no seed records, so a run would make no call"},
	{CodeSuiteTrainer, "an environment runs a task suite but its trainer is not builtin:command, the trainer that runs each suite task's evaluation command"},
	{CodeUnsupplied, "check or run: a variable whose supply says what a run needs it to hold is still empty; validate, estimate and plan do not need it"},
	{CodeSuiteUnfilled, "check or run: a task suite still has a placeholder ({\"fill\": ...}) its user writes from the benchmark's scoring specification, or its checkout is not named (suite_root is empty); validate, estimate and plan need neither"},
	{CodeExtendsUnloaded, "a spec with extends reached the compiler without its base merged in (it was not loaded through lang/load)"},
	{CodeNotApplicable, "a field is set where it has no effect; remove it, or change what makes it apply"},
	{CodeRoleAmbiguous, "a block calls a role of a kind the spec declares several of, without naming which"},
	{CodePluginConfig, "a built-in plugin's config has a key its schema does not declare, a value of the wrong type or range, or keys that exclude each other"},
	{CodeUnscreened, "a critic's routing field (threshold, route, expected_routed) is set, but no loop routes with the critic"},
	{CodeClipUnused, "reward clip is set, but neither formula reads c and no calibration compares clipped rewards"},
	{CodeNormalizeUnused, "reward normalize is set, but the value formula does not read scale and no calibration compares normalised rewards"},
	{CodeDiversityUnused, "a diversity block is set, but the value formula does not read diversity_bonus"},
	{CodeTieUnused, "a critic's tie rule is set, but one vote cannot tie"},
	{CodeThresholdUnused, "a critic's threshold is set, but its route formula does not read threshold"},
	{CodeSlurmLocal, "a slurm block is set, but the executor is local"},
	{CodeShadowed, "an environment's scale or baseline is set, but every task it lists sets its own"},
	{CodePresetUnused, "a loop preset is set, but the loop sets every field the preset would fill"},
	{CodeUnusedBlock, "a reward or critic block is used by no loop (nor, for a critic, by any reward)"},
	{CodeNameChars, "a name holds a control character (newline, escape, NUL, DEL...) or an invisible or bidirectional format character; rename it with visible characters"},
	{CodeCriticTrainer, "a critic_training block's sft or grpo cannot train its critic: a trainer command for a critic whose plugin cannot serve an adapter, or no trainer for one whose plugin cannot train itself"},
	{CodePolicyFixed, "warning: an RL loop's proposer is served by a plugin that cannot update a policy, and the loop has no update block, so the run samples a fixed policy"},
	{CodeSource, "a source block's field is malformed: an empty build argument, an editable path that is absolute, leaves the repository or is not a glob, an empty repository or revision"},
	{CodeSourceRepo, "a source's repository is not a git repository, or its revision names no commit (checked by validate as run would)"},
	{CodeSourceImport, "a source's directory to import cannot be imported whole and safely: more files or bytes than the import's bounds, a symlink that is absolute or leads out of it, a file that is neither regular nor a symlink (checked by validate as run would)"},
	{CodeSourceKnobs, "the builtin:command trainer of an environment in source mode declares knobs, refers to {{config}} or to a knob's or an edit's value in its command, sets a knob-mode setting (apply, overrides_file, overrides_format, repo, revision) or passes ASSAY_CONFIG; in source mode a candidate runs exactly its commit, and a change is a patch of the editable files"},
	{CodeICLRecords, "warning: evaluation.icl_records is more than the real records the run can have before its evaluation, so the in-context arm's prompts hold fewer"},
	{CodeLLMUnpriced, "warning: a role has no tokens or price, so its dollars are not estimated"},
	{CodeCalibrationSkips, "warning: a calibration round falls after the last policy step and never runs"},
	{CodeUnbounded, "warning: nothing bounds some figure of the estimate from above (a loop that spends the real-run budget may make no real run per step at the low end of its assumptions, and neither max_steps nor budget.usd stops it); the estimate shows it as unbounded"},
	{CodeCalMidRollout, "warning: a calibration round falls between rollout refreshes, so it runs an older rollout's proposals and its records reach rewards only at the next refresh"},
	{CodeSetRouted, "warning: --set changes a critic's votes or threshold but not its expected_routed, so the estimate assumes the routed share it had"},
	{CodeVariantsIgnore, "warning: a field is set that takes no effect in some variants of a sweep (it would be refused in a spec of its own, e.g. tie at votes = 1); it takes effect in the others, so the sweep keeps it. When no variant reads it, the field's own error stands"},
	{CodeSweepRouted, "warning: a sweep varies a critic's votes or threshold but not its expected_routed, so every variant assumes the same routed share"},
}

// soundErrors are the errors that refuse what a sound spec asks for (a
// budget its fixed runs exceed, an executor too small, a field set where
// it takes no effect) rather than leave it unsound: after them the spec can
// still be lowered, and CompilePartial shows what it compiled to.
var soundErrors = withCodes(ignoredCodes, CodeBudgetFit, CodeExecutorGPUs)

// withCodes is a copy of set with codes added.
func withCodes(set map[string]bool, codes ...string) map[string]bool {
	out := make(map[string]bool, len(set)+len(codes))
	for c := range set {
		out[c] = true
	}
	for _, c := range codes {
		out[c] = true
	}
	return out
}
