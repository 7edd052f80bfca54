package spec

import "github.com/assay-lang/assay/lang/diag"

// Spec is one experiment. A front end fills it from one file (or a CUE
// package) and leaves Extends as written; lang/load then loads the base spec
// and merges this one over it (Merge), so later phases see a spec that
// stands alone. Presets from stdlib/ are merged in by the compiler.
type Spec struct {
	Extends     Val[string] `assay:"extends" doc:"base spec this one builds on, a path relative to this file (.hcl or .cue); this file's attributes and blocks are merged over it"`
	Name        Val[string] `assay:"name" doc:"experiment name; defaults to the file name without extension"`
	Description Val[string] `assay:"description" doc:"what the experiment is for"`
	Seed        Val[int]    `assay:"seed" doc:"random seed of the whole run; a run with the same seed makes the same choices"`

	Variables    []*Variable    `assay:"variable,blocks" doc:"input variables, overridable with -var and -var-file"`
	Plugins      []*Plugin      `assay:"plugin,blocks" doc:"plugins: trainers, LLM clients and benchmarks, each a separate process"`
	Prices       *Prices        `assay:"prices,block" doc:"price table: GPU type to dollars per GPU-hour"`
	Environments []*Environment `assay:"environment,blocks" doc:"model families and training codebases that proposals edit, with their tasks"`
	Roles        []*Role        `assay:"role,blocks" doc:"LLM roles: proposer, rwm, builder, implementer, summarizer, critic"`
	Rewards      []*Reward      `assay:"reward,blocks" doc:"reward shaping for an RL loop"`
	Critics      []*Critic      `assay:"critic,blocks" doc:"critic voting and uncertainty routing"`
	Loops        []*Loop        `assay:"loop,blocks" doc:"the search loop: RL (grpo, dapo) or evolution"`
	Records      *Records       `assay:"records,block" doc:"seed records: real runs that build the world model's initial context"`
	Calibration  *Calibration   `assay:"calibration,block" doc:"on-policy calibration schedule of the world model"`
	Evaluation   *Evaluation    `assay:"evaluation,block" doc:"evaluation protocol on held-out tasks, by real runs"`
	CriticEvals  []*CriticEval  `assay:"critic_eval,blocks" doc:"static critic evaluations: critics judge a labelled pairs file (docs/pairs.md) and are scored against its labels, side by side, with no real run"`
	Budget       *Budget        `assay:"budget,block" doc:"hard caps; the estimate fails and the runtime stops before any is exceeded"`
	Executor     *Executor      `assay:"executor,block" doc:"where real runs execute: the local machine or a Slurm cluster"`
	Sweep        *Sweep         `assay:"sweep,block" doc:"expand the spec into variants over listed values or a grid"`

	// CriticTrainings run after the seed records and before the loops.
	CriticTrainings []*CriticTraining `assay:"critic_training,blocks" doc:"critic training before the loops: teacher critiques of labelled pairs, SFT, GRPO (see docs/critic-training.md)"`

	// Files are the source files the spec came from, for diagnostics.
	Files []string `json:"-"`
	Range diag.Range
}

// Variable is a declared input. Value is the final value after defaults,
// -var-file and -var; front ends substitute it where the spec refers to it.
type Variable struct {
	Name        string      `json:"-"`
	NameRange   diag.Range  `json:"-"`
	Type        Val[string] `assay:"type" enum:"number|string|bool|list(number)|list(string)" doc:"value type"`
	Default     Val[any]    `assay:"default" doc:"value when not overridden"`
	Description Val[string] `assay:"description" doc:"what the variable controls"`
	Supply      Val[string] `assay:"supply" doc:"what a run needs the variable to hold, for a string or list variable whose default is empty: while its value is empty, validate, estimate and plan work and check and run refuse the spec, saying this"`
	Value       Val[any]    `json:"-"`
}

// Plugin declares a plugin binary.
type Plugin struct {
	Name      string              `json:"-"`
	NameRange diag.Range          `json:"-"`
	Kind      Val[string]         `assay:"kind" enum:"trainer|llm|benchmark" doc:"what the plugin does"`
	Source    Val[string]         `assay:"source" doc:"\"builtin:NAME\" for a plugin served by the assay binary itself, or a path to an executable (relative to the spec)"`
	Version   Val[string]         `assay:"version" doc:"version the lock file pins"`
	Config    Val[map[string]any] `assay:"config" doc:"plugin-specific settings passed verbatim"`
}

// Prices is a price table.
type Prices struct {
	Preset Val[string]             `assay:"preset" doc:"stdlib price table to start from, e.g. \"cloud-2026\""`
	GPU    Val[map[string]float64] `assay:"gpu_hourly" unit:"$/GPU-hour" doc:"dollars per GPU-hour by GPU type; entries override the preset's"`
	Range  diag.Range              `json:"-"`
}

// Environment is a model family + training codebase with its tasks.
type Environment struct {
	Name      string       `json:"-"`
	NameRange diag.Range   `json:"-"`
	Family    Val[string]  `assay:"family" doc:"model family, e.g. autoregressive or diffusion"`
	Metric    *Metric      `assay:"metric,block" doc:"what a real run measures"`
	Baseline  Val[float64] `assay:"baseline" doc:"metric of the reference configuration (b_e); tasks may override"`
	Scale     Val[float64] `assay:"scale" doc:"per-task reward scale tau_e; tasks may override"`
	RunCost   *RunCost     `assay:"run_cost,block" doc:"cost of one real run"`
	Tasks     *TaskCounts  `assay:"tasks,block" doc:"number of train and holdout tasks, when tasks are not listed one by one"`
	TaskList  []*Task      `assay:"task,blocks" doc:"tasks listed one by one"`
	Trainer   Ref          `assay:"trainer" doc:"trainer plugin that runs a proposal for real, e.g. plugin.tinylm"`
	Benchmark Ref          `assay:"benchmark" doc:"benchmark plugin that lists tasks, baselines and scales"`
	Suite     Val[string]  `assay:"suite" doc:"task-suite manifest (JSON, relative to this file; see docs/task-suites.md) whose tasks join this environment's, each with its domain, description, scaffold, evaluation command, metric, baseline and normalisation bounds"`
	// SuiteRoot and SuiteExclude shape what the suite lends: the
	// checkout its scaffolds are in, and the tasks left out.
	SuiteRoot    Val[string]   `assay:"suite_root" doc:"the directory the suite's scaffold repositories are relative to (default: the manifest's own directory), e.g. a checkout of the benchmark's tasks; empty: not given yet, so validate, estimate and plan work and check and run refuse the suite, naming this attribute"`
	SuiteExclude Val[[]string] `assay:"suite_exclude" doc:"names of the suite's tasks this environment leaves out, each one the manifest lists"`
	Source       *Source       `assay:"source,block" doc:"the seed program: a git repository whose editable files a candidate changes with a patch (without it, proposals are knob edits)"`
	Range        diag.Range    `json:"-"`
}

// Metric names the measured quantity and its direction.
type Metric struct {
	Name      Val[string] `assay:"name" doc:"metric name, e.g. val_bpb"`
	Direction Val[string] `assay:"direction" enum:"minimize|maximize" doc:"whether lower or higher is better"`
	Range     diag.Range  `json:"-"`
}

// RunCost is the price of one real run: GPU type x GPU count x hours, or GPU-hours.
type RunCost struct {
	GPU      Val[string] `assay:"gpu" doc:"GPU type; must have a price (not needed with gpus = 0)"`
	GPUs     Val[int]    `assay:"gpus" doc:"GPUs per run; 0 for a run that needs none (CPU work: no GPU asked for, no GPU-hour spent)"`
	Hours    Val[Spread] `assay:"hours" unit:"hours" doc:"wall-clock hours per run: one number, or { low, expected, high }; the high figure bounds the estimate and the wall-clock and dollar caps, and is each run's time limit (a run stopped there fails)"`
	GPUHours Val[Spread] `assay:"gpu_hours" unit:"GPU-hours" doc:"GPU-hours per run, instead of gpus x hours: one number, or { low, expected, high }"`
	Range    diag.Range  `json:"-"`
}

// TaskCounts gives how many tasks of each split an environment has.
type TaskCounts struct {
	Train   Val[int]   `assay:"train" doc:"train tasks"`
	Holdout Val[int]   `assay:"holdout" doc:"holdout tasks"`
	Range   diag.Range `json:"-"`
}

// Task is one research question of an environment.
type Task struct {
	Name      string       `json:"-"`
	NameRange diag.Range   `json:"-"`
	Split     Val[string]  `assay:"split" enum:"train|holdout" doc:"which split the task belongs to"`
	Baseline  Val[float64] `assay:"baseline" doc:"baseline metric b_e of this task"`
	Scale     Val[float64] `assay:"scale" doc:"reward scale tau_e of this task"`
	// Suite is what a task-suite manifest says of a task it lists (nil for
	// a task the spec writes): lang/load fills it from the environment's
	// suite attribute; no front end sets it.
	Suite  *SuiteTask `json:"-"`
	Source *Source    `assay:"source,block" doc:"the task's seed program; each field given here overrides the environment's source"`
	Range  diag.Range `json:"-"`
}

// SuiteTask is one task of a task-suite manifest beyond its name, split,
// baseline and scale, which fill the Task's own fields.
type SuiteTask struct {
	Domain      string
	Description string
	Metric      string
	Direction   string
	// Low and High bound the metric; a score normalises to
	// (score - Low) / (High - Low), or (High - score) / (High - Low) when
	// lower is better, so 1 is the best bound.
	Low, High float64
	// Command is the evaluation command, an argv; Dir is the scaffold's
	// repository directory it runs in, relative to the working directory.
	Command []string
	Dir     string
	// Revision and Editable are the scaffold's pinned revision and edit
	// surface, carried as data.
	Revision string
	Editable []string
	// Manifest is the task's entry in the manifest, for diagnostics.
	Manifest diag.Range
	// Criteria are the task's criteria for a critic (the manifest's
	// criteria or criteria_file); CriteriaFrom is "inline" or the file
	// as the manifest names it, empty without criteria.
	Criteria, CriteriaFrom string
	// CriticSplit is what the task's pairs trained a critic on ("sft",
	// "grpo", "heldout"; empty when the manifest does not say), and
	// Unscored leaves the task out of the report's averages.
	CriticSplit string
	Unscored    bool
	// Unfilled are the manifest's placeholders of this task, which a run
	// refuses until they are written; their fields hold no value.
	Unfilled []Unfilled
	// Unrooted says the environment's suite_root is empty, so Dir is not
	// known yet (it is "").
	Unrooted bool
}

// Unfilled is a placeholder of a manifest ({"fill": "what"}): Field is
// its path in the task ("baseline", "bounds.low"), Fill what to write, At
// where.
type Unfilled struct {
	Field, Fill string
	At          diag.Range
}

// Has reports whether field is one of the task's placeholders.
func (st *SuiteTask) Has(field string) bool {
	if st == nil {
		return false
	}
	for _, u := range st.Unfilled {
		if u.Field == field {
			return true
		}
	}
	return false
}

// Source is a seed program: a git repository at a revision whose editable
// paths a candidate's patch may change. Each candidate is built in its own
// git worktree and committed under refs/assay/<run-id>/.
type Source struct {
	Repository    Val[string]   `assay:"repository" doc:"git repository of the seed program: a path relative to the spec file, or absolute"`
	Revision      Val[string]   `assay:"revision" doc:"revision of the seed program (default HEAD), resolved to a commit id when a run starts and journaled"`
	Editable      Val[[]string] `assay:"editable" doc:"paths a patch may change, as git pathspec globs (e.g. \"model/*.go\"); a patch touching any other path is refused, and so is a change of .gitattributes, .gitmodules or .gitignore unless an entry names that file itself (a glob such as \"*\" does not)"`
	Build         Val[[]string] `assay:"build" doc:"command run in a candidate's worktree after its patch applies, as an argument list (never through a shell), in the environment its real runs get: the base variables every job inherits and, with a builtin:command trainer, its pass_env and env; no other variable of Assay's (an LLM plugin's API key) reaches it. A failure goes back to the builder"`
	Repairs       Val[int]      `assay:"repairs" doc:"times a candidate goes back to the builder with its error (default 2, at most 10): a patch that does not apply, a build that fails, or a real run that fails in the program's own code (a non-zero exit, no metric; not a time limit, not infeasible), which is told the end of the run's stderr and runs again as a new commit; a candidate's build and run repairs share them"`
	KeepWorktrees Val[bool]     `assay:"keep_worktrees" doc:"keep each candidate's worktree after it is done (default false: removed; its commit stays)"`
	Import        *Import       `assay:"import,block" doc:"the repository is a plain directory, or one inside another repository: Assay copies its files (bounded; .git left out) into a git repository of its own under the runs directory, one per content, commits them as the seed program, and builds candidates there"`
	Range         diag.Range    `json:"-"`
}

// Import turns a source's repository into a directory whose files Assay
// imports into a repository of its own (see docs/real-path.md).
type Import struct {
	Exclude Val[[]string] `assay:"exclude" doc:"paths left out of the import, as globs relative to the directory (e.g. \"*_test.go\", \"data/**\")"`
	Overlay Val[string]   `assay:"overlay" doc:"a directory, relative to the file that writes it, whose files are laid over the imported ones (e.g. a go.mod the directory lacks outside its module)"`
	Range   diag.Range    `json:"-"`
}

// Role is an LLM role.
type Role struct {
	Name        string       `json:"-"`
	NameRange   diag.Range   `json:"-"`
	Kind        Val[string]  `assay:"kind" enum:"proposer|rwm|builder|implementer|summarizer|critic" doc:"what the role does; defaults to the role's name when that is a kind"`
	LLM         Ref          `assay:"llm" doc:"LLM plugin, e.g. plugin.offline"`
	Model       Val[string]  `assay:"model" doc:"model id sent to the LLM plugin"`
	Temperature Val[float64] `assay:"temperature" doc:"sampling temperature"`
	Tokens      *Tokens      `assay:"tokens,block" doc:"tokens per call: the estimate prices every call at these, a call asks for at most out completion tokens, and the dollar cap holds a call's cost at these before it is made"`
	Price       *TokenPrice  `assay:"price,block" doc:"price per million tokens"`
	Concurrency Val[int]     `assay:"concurrency" doc:"calls in flight at once"`
	Seconds     Val[float64] `assay:"seconds" unit:"seconds" doc:"expected latency of one call, for wall-time estimates"`
	// Builds that fail are the estimate's assumption about a builder role:
	// a failed build makes no real run and reaches no critic.
	BuildFailures Val[Spread] `assay:"build_failures" doc:"builder roles: share of builds that fail, for estimates: one number (low = expected = high), or { low, expected, high } (default 0)"`
	Prompt        *Prompt     `assay:"prompt,block" doc:"the role's own prompt: a system and a user template (Go text/template over the role kind's variables; see docs/prompts.md); either omitted takes Assay's default"`
	Answer        *Answer     `assay:"answer,block" doc:"how the role's answer is read, and how often an answer that cannot be read is asked again"`
	Range         diag.Range  `json:"-"`
}

// Prompt is a role's prompt templates, each inline or in a file beside
// the spec. The loader reads the files into SystemText and UserText.
type Prompt struct {
	System     Val[string] `assay:"system" doc:"the system message's template, inline"`
	SystemFile Val[string] `assay:"system_file" doc:"a file holding the system message's template, relative to the file that writes it"`
	User       Val[string] `assay:"user" doc:"the user message's template, inline"`
	UserFile   Val[string] `assay:"user_file" doc:"a file holding the user message's template, relative to the file that writes it"`
	// Criteria are a critic's task understanding and criteria, which its
	// templates read as .Criteria.
	Criteria     Val[string] `assay:"criteria" doc:"critic roles: the task understanding and criteria the critic judges by, inline; its templates read them as .Criteria"`
	CriteriaFile Val[string] `assay:"criteria_file" doc:"critic roles: a file holding the criteria, relative to the file that writes it"`
	CriteriaDir  Val[string] `assay:"criteria_dir" doc:"critic roles: a directory of per-task criteria, relative to the file that writes it: TASK.md holds the understanding and criteria of the task named TASK, which the critic's templates read as .Criteria when it judges that task (in place of criteria)"`
	// CriteriaRole is the summarizer role a critic asks, once per task of
	// the run, for the task's understanding and criteria.
	CriteriaRole Ref        `assay:"criteria_role" doc:"critic roles: a summarizer role (role.NAME) asked once per task for the task's understanding and criteria, which the critic's templates read as .Criteria on that task's calls when no criteria file gives the task's (the manifest's criteria and criteria_dir win); its answer is journaled and kept in the runs directory's criteria store, which later runs reuse without a call; priced as at most one call per task"`
	Range        diag.Range `json:"-"`

	// SystemText and UserText are the files' contents and SystemPath and
	// UserPath where they were read, set by the loader (lang/load); Read is
	// set once it has read them.
	SystemText, UserText, CriteriaText string `json:"-"`
	SystemPath, UserPath, CriteriaPath string `json:"-"`
	Read                               bool   `json:"-"`
	// TaskCriteria are criteria_dir's files by task name, and
	// CriteriaDirPath where they were read, set by the loader.
	TaskCriteria    map[string]string `json:"-"`
	CriteriaDirPath string            `json:"-"`
}

// Answer is how a role's answer is read.
type Answer struct {
	Format  Val[string] `assay:"format" enum:"json|pattern|text|list" doc:"json: the answer is the role's JSON object (the default); pattern: critics only, the verdict is the first group of pattern's first match in the free text; text: proposers only, the whole answer is one idea in free text; list: proposers only, each item of the answer's numbered or bulleted list is an idea (prose around it left out), the first the proposal; an idea that begins with a mechanism in brackets ([optimizer]) has that mechanism; a free-text proposer's ideas carry no knob edits or patch, so every block that samples it needs a builder"`
	Pattern Val[string] `assay:"pattern" doc:"format = \"pattern\": a regular expression (RE2 syntax) with a capture group that holds the label, matched case-insensitively against the label set, e.g. \"Final verdict:\\\\s*(\\\\w+)\""`
	Reasks  Val[int]    `assay:"reasks" doc:"how many times an answer that cannot be read is asked again before it counts as unparsed (default 0); the estimate prices them at its high figure"`
	// Verdicts read a pattern of several named groups, as a verdict in
	// two tags ([IMPROVEMENT] improve [WINTIER] big) is read.
	Verdicts []*Verdict `assay:"verdict,blocks" doc:"format = \"pattern\" with named groups ((?P<NAME>...)): one block per label of the critic's label set, the block's label (e.g. \"BigWin\"); the answer is that label when the groups its groups name read those values (case-insensitively) in the pattern's first match, and exactly one block's groups must match, else the answer is unparsed; without verdict blocks the first group is the label"`
	Range    diag.Range `json:"-"`
}

// Verdict is one label of a critic's verdict read by named groups: the
// answer is Name when every group in Groups reads its value.
type Verdict struct {
	Name      string              `json:"-"`
	NameRange diag.Range          `json:"-"`
	Groups    Val[map[string]any] `assay:"groups" doc:"named group to the value it reads for this label, e.g. { improvement = \"improve\", tier = \"big\" }; a group left out may read anything"`
	Range     diag.Range          `json:"-"`
}

// Tokens is the expected token use of one call.
type Tokens struct {
	In    Val[Spread] `assay:"in" doc:"prompt tokens per call: one number, or { low, expected, high }; the dollar cap holds a call at the high figure"`
	Out   Val[Spread] `assay:"out" doc:"completion tokens per call: one number, or { low, expected, high }; a call asks for at most the high figure"`
	Range diag.Range  `json:"-"`
}

// TokenPrice is dollars per million tokens.
type TokenPrice struct {
	In    Val[float64] `assay:"in" unit:"$/M tokens" doc:"dollars per million prompt tokens"`
	Out   Val[float64] `assay:"out" unit:"$/M tokens" doc:"dollars per million completion tokens"`
	Range diag.Range   `json:"-"`
}

// Reward is reward shaping for an RL loop.
type Reward struct {
	Name       string       `json:"-"`
	NameRange  diag.Range   `json:"-"`
	Source     Val[string]  `assay:"source" enum:"predicted|real|critic" doc:"where the gain comes from: a world model's prediction, a real run, or a critic's label"`
	Predictor  Ref          `assay:"predictor" doc:"role that predicts gain (source = predicted) or critic that labels (source = critic)"`
	Normalize  Val[string]  `assay:"normalize" enum:"scale|none" doc:"divide gain by the task's scale tau_e"`
	Clip       Val[float64] `assay:"clip" doc:"clip c: normalised gain is clipped to [-c, c]"`
	Value      Formula      `assay:"value" doc:"reward of a valid proposal, a formula"`
	Repeat     Val[float64] `assay:"repeat_penalty" doc:"delta: a repeated proposal gets the group's lowest valid reward minus delta"`
	Infeasible Formula      `assay:"infeasible" doc:"reward of an infeasible proposal, a formula (e.g. \"-c\")"`
	Diversity  *Diversity   `assay:"diversity,block" doc:"diversity bonus over mechanism directions"`
	Range      diag.Range   `json:"-"`
}

// Diversity is the diversity bonus.
type Diversity struct {
	By     Val[string]  `assay:"by" enum:"mechanism" doc:"what makes proposals alike"`
	Weight Val[float64] `assay:"weight" doc:"bonus of a proposal alone in its direction; it shrinks as more of the group share it"`
	Range  diag.Range   `json:"-"`
}

// Critic is critic voting with uncertainty routing.
type Critic struct {
	Name           string       `json:"-"`
	NameRange      diag.Range   `json:"-"`
	Role           Ref          `assay:"role" doc:"critic role that is sampled"`
	Votes          Val[int]     `assay:"votes" doc:"k: critic samples per candidate"`
	Labels         Val[string]  `assay:"labels" enum:"3way|5way" doc:"label space: improve/tie/lose, or the BigWin..Lose ladder"`
	Aggregate      Val[string]  `assay:"aggregate" enum:"majority|mean_rank" doc:"how votes become a verdict"`
	Tie            Val[string]  `assay:"tie" enum:"route|lose|tie" doc:"what a tied majority means; required when an even k can tie"`
	Threshold      Val[float64] `assay:"threshold" doc:"uncertainty threshold T in [0, 1): at or above it a candidate is routed to a real run"`
	Route          Formula      `assay:"route" doc:"routing rule as a formula; defaults to \"uncertainty >= threshold\""`
	ExpectedRouted Val[Spread]  `assay:"expected_routed" doc:"share of candidates routed to a real run, for estimates: one number (low = that number, high = 1), or { low, expected, high }"`
	Range          diag.Range   `json:"-"`
}

// Loop is the search loop.
type Loop struct {
	Name      string      `json:"-"`
	NameRange diag.Range  `json:"-"`
	Preset    Val[string] `assay:"preset" doc:"stdlib loop preset to start from, e.g. \"dapo\" or \"openevolve\""`
	Kind      Val[string] `assay:"kind" enum:"rl|evolution" doc:"RL over a proposer policy, or evolution with islands"`

	// RL.
	Algorithm         Val[string]  `assay:"algorithm" enum:"grpo|dapo" doc:"policy-gradient algorithm"`
	Steps             Val[int]     `assay:"steps" doc:"policy updates; omit with until_budget = true to spend the budget"`
	UntilBudget       Val[bool]    `assay:"until_budget" doc:"run as many steps as the real-run budget buys"`
	MaxSteps          Val[int]     `assay:"max_steps" doc:"with until_budget = true: the most steps the loop takes, whatever the budget buys; bounds its LLM calls where the assumptions do not"`
	StatesPerStep     Val[int]     `assay:"states" doc:"states per rollout"`
	ProposalsPerState Val[int]     `assay:"proposals_per_state" doc:"proposals sampled per state (group size G)"`
	RolloutEvery      Val[int]     `assay:"rollout_every" doc:"steps between rollout refreshes; 1 = a fresh rollout each step"`
	ZeroVariance      Val[string]  `assay:"zero_variance" enum:"drop|keep" doc:"what to do with groups whose rewards are all equal"`
	Reward            Ref          `assay:"reward" doc:"reward block"`
	Screen            Ref          `assay:"screen" doc:"critic that judges candidates (evolution: ranks ideas; RL: labels them and routes uncertain ones to real runs)"`
	AuditShare        Val[float64] `assay:"audit_share" doc:"RL loops whose screen routes: share in [0, 1] of the candidates the screen does not route that are verified by real runs anyway (the floor of share x n of each screened batch of n, chosen by the seed), so that the critic's error recall is measured rather than 1 by construction; an audited candidate's reward is its real outcome"`
	LearningRate      Val[float64] `assay:"learning_rate" doc:"policy learning rate"`
	NewParent         Val[string]  `assay:"new_parent" enum:"all_improve|never" doc:"parent-conditioned RL (a critic or a real reward): all_improve makes one child, at random, its task's new parent when every candidate of its group is judged Improve, as the papers' critic-in-loop GRPO does; never keeps each task's seed program as the parent"`
	Repairs           Val[int]     `assay:"repairs" doc:"builder repairs of a candidate whose build fails: each repair is one more builder call, told the failure, up to this many (the papers' critic-in-loop GRPO allows 3); 0 makes a failed build final"`
	// Dynamic sampling (DAPO): a step whose groups were dropped samples
	// that many fresh groups again, at most this many extra rounds.
	ResampleRounds  Val[int]      `assay:"resample_rounds" doc:"dynamic sampling (zero_variance = \"drop\"): most extra rounds per step that sample fresh groups in place of the dropped ones; 0 = no refill"`
	ExpectedDropped Val[float64]  `assay:"expected_dropped" doc:"expected share of groups with all rewards equal, for estimates of the refill (default 0; the high estimate assumes every group is dropped)"`
	Update          *PolicyUpdate `assay:"update,block" doc:"train the proposer with your RL training command after each step and serve the new adapter (see docs/policy-training.md)"`

	// Evolution.
	Islands         Val[int]                `assay:"islands" doc:"independent populations per task"`
	Rounds          Val[int]                `assay:"rounds" doc:"rounds per island"`
	MigrationEvery  Val[int]                `assay:"migration_every" doc:"rounds between migrations of the best solution across islands"`
	Ideas           Val[int]                `assay:"ideas_per_round" doc:"ideas the proposer makes per island-round, among which the screen critic picks those verified; a loop without a screen makes only the ideas it verifies (verifications_per_round)"`
	Verifications   Val[int]                `assay:"verifications_per_round" doc:"real runs per island-round"`
	Select          Val[string]             `assay:"select" enum:"best_mean_rank|majority|random" doc:"which screened ideas are verified"`
	VerifyRouted    Val[bool]               `assay:"verify_routed" doc:"ideas its screen critic routes (an uncertain verdict, by the critic's route rule) are verified by real runs too, beyond verifications_per_round, which the best-ranked of the rest fill; false: exactly verifications_per_round, as the papers ran OpenEvolve"`
	MigrationRate   Val[float64]            `assay:"migration_rate" doc:"share of an island's verified programs, best first, copied to the next island (a ring) at each migration; at least one"`
	TopPrograms     Val[int]                `assay:"top_programs" doc:"inspirations: the island's best verified programs the proposer sees beside its parent"`
	DiversePrograms Val[int]                `assay:"diverse_programs" doc:"inspirations: elites of other MAP-Elites cells the proposer sees beside its parent"`
	FeatureBins     Val[map[string]float64] `assay:"feature_bins" doc:"MAP-Elites archive: bins per feature dimension (complexity, diversity, mechanism, score); each cell keeps its best verified program; entries merge with a preset's, and 0 leaves a dimension out"`
	// ChildrenPerParent is stage 2 of the critics paper's two-stage pair
	// collection (appendix C.2); the rounds before it are stage 1.
	ChildrenPerParent Val[int]         `assay:"children_per_parent" doc:"pair collection, the critics paper's second stage (its appendix C.2: 20): after a task's rounds, each program its islands verified (the solution each step produced) is the parent of this many children, each proposed against it, built and run for real, with no screen, and taken by no island; their pairs are what assay export pairs labels per parent; default 0: none"`
	Continual         *CriticContinual `assay:"continual,block" doc:"test-time continual learning of the screen critic during the loop: T-GRPO and SDFT updates on the pairs it verifies (see docs/critic-training.md)"`

	Split Val[string] `assay:"split" enum:"train|holdout" doc:"tasks the loop runs on"`

	// Roles the loop calls; each defaults to the only role of its kind.
	Proposer   Ref `assay:"proposer" doc:"proposer role the loop samples and trains; required when the spec has several proposers"`
	Builder    Ref `assay:"builder" doc:"builder (or implementer) role that turns a proposal into a runnable one; required when the spec has several"`
	Summarizer Ref `assay:"summarizer" doc:"summarizer role that describes a built candidate for the critic; required when the spec has several"`

	Range diag.Range `json:"-"`
}

// PolicyUpdate trains a loop's proposer outside Assay: each policy update's
// batch goes to a command plugin's update_command, through the spec's
// executor, and the proposer's endpoint then serves the adapter it wrote.
type PolicyUpdate struct {
	Trainer Ref          `assay:"trainer" doc:"command plugin (source = \"builtin:command\", with update_command in its config) that runs one policy update"`
	GPU     Val[string]  `assay:"gpu" doc:"GPU type of one update; must have a price"`
	GPUs    Val[int]     `assay:"gpus" doc:"GPUs of one update"`
	Hours   Val[float64] `assay:"hours" unit:"hours" doc:"wall-clock hours of one update, for its cost and the wall-time estimate"`
	Adapter Val[string]  `assay:"adapter" doc:"name prefix of the adapters the proposer's endpoint serves: update N is loaded as PREFIX-step-N; defaults to the loop's name"`
	// The update's hyperparameters; each unset one is the loop
	// algorithm's (plan.Algorithms), resolved into the plan.
	ClipLow     Val[float64] `assay:"clip_low" doc:"the ratio pi/pi_old is clipped below at 1 - clip_low, in [0, 1) (grpo and dapo: 0.2)"`
	ClipHigh    Val[float64] `assay:"clip_high" doc:"the ratio pi/pi_old is clipped above at 1 + clip_high (grpo: 0.2; dapo: 0.28, clip-higher)"`
	KLCoef      Val[float64] `assay:"kl_coef" doc:"beta of the KL penalty toward the reference (base) policy (grpo: 0.04; dapo: 0, none)"`
	Epochs      Val[int]     `assay:"epochs" doc:"gradient passes over one update's batch (grpo and dapo: 4)"`
	WeightDecay Val[float64] `assay:"weight_decay" doc:"the optimiser's decoupled weight decay on the adapter's weights (grpo and dapo: 0, as neither paper sets one)"`
	LoRARank    Val[int]     `assay:"lora_rank" doc:"rank of the LoRA adapter the update command trains, 1 to 4096 (unset: the command's own default, and the job leaves it out)"`
	Range       diag.Range   `json:"-"`
}

// Records are seed records.
type Records struct {
	SeedRuns Val[int]    `assay:"seed_runs" doc:"real runs on train tasks that build the world model's initial context"`
	Select   Val[string] `assay:"select" enum:"random|baseline_neighbours" doc:"how seed proposals are chosen: random runs each as the proposer made it (the papers' seed records); baseline_neighbours keeps one of its edits, at random, so each record differs from the baseline in one knob (an Assay option, not from the papers)"`
	Proposer Ref         `assay:"proposer" doc:"proposer role that makes the seed proposals; required when the spec has several proposers"`
	Builder  Ref         `assay:"builder" doc:"builder (or implementer) role; required when the spec has several"`
	Range    diag.Range  `json:"-"`
}

// Calibration is the world model's on-policy calibration schedule.
type Calibration struct {
	Loop       Ref         `assay:"loop" doc:"RL loop being calibrated; defaults to the only RL loop"`
	AfterSteps Val[[]int]  `assay:"after_steps" doc:"policy steps after which a calibration round runs, strictly increasing"`
	Budget     Val[[]int]  `assay:"budget" doc:"real runs per round: one number for every round, or one per round"`
	Select     Val[string] `assay:"select" enum:"top_rated|random" doc:"which proposals are run for real"`
	Range      diag.Range  `json:"-"`
}

// Evaluation is the held-out evaluation protocol.
type Evaluation struct {
	Split  Val[string] `assay:"split" enum:"holdout|train" doc:"tasks evaluated"`
	AvgAt  Val[int]    `assay:"avg_at" doc:"k of Avg@k: mean gain over k proposals per state"`
	BestAt Val[int]    `assay:"best_at" doc:"k of Best@k: best gain over k proposals per state"`
	// States are research states per task; each gets k proposals per arm.
	States    Val[int]    `assay:"states" doc:"research states evaluated per task, each with max(avg_at, best_at) proposals of every arm (default 1)"`
	Normalize Val[string] `assay:"normalize" enum:"scale|none" doc:"scale: gains are divided by the task's scale tau_e, so tasks and environments compare (default); none: raw metric units"`
	// Proposer is the policy evaluated: its latest trained state.
	Proposer Ref `assay:"proposer" doc:"proposer role evaluated (its latest trained policy); required when the spec has several proposers"`
	Builder  Ref `assay:"builder" doc:"builder (or implementer) role; required when the spec has several"`
	// Base and ICL are further arms on the same states: proposer roles at
	// their untrained (initial) policy, the second with real records in
	// its prompt.
	Base       Ref      `assay:"base" doc:"proposer role evaluated the same way at its untrained policy (the Base, or zero-shot, arm); the share of states the evaluated policy beats it is reported. May be the evaluated proposer itself"`
	ICL        Ref      `assay:"icl" doc:"proposer role evaluated the same way at its untrained policy with icl_records real records in its prompt (the in-context baseline); size its tokens.in for them"`
	ICLRecords Val[int] `assay:"icl_records" doc:"K: real records (seed, calibration and loop runs, oldest first) in the prompt of the icl arm"`
	// Predictor is a world model that predicts each evaluated proposal
	// before its real run, which never joins its context.
	Predictor Ref        `assay:"predictor" doc:"world model role (kind rwm) that predicts every evaluated proposal's gain before its real run, for the held-out analysis: within-state rank accuracy, advantage cosine and predicted-real gap"`
	Range     diag.Range `json:"-"`
}

// Budget holds hard caps. Unset caps are not enforced.
type Budget struct {
	RealRuns  Val[int]     `assay:"real_runs" doc:"real runs"`
	GPUHours  Val[float64] `assay:"gpu_hours" unit:"GPU-hours" doc:"GPU-hours"`
	USD       Val[float64] `assay:"usd" unit:"$" doc:"dollars, GPU and LLM together"`
	WallHours Val[float64] `assay:"wall_hours" unit:"hours" doc:"wall-clock hours"`
	Range     diag.Range   `json:"-"`
}

// Executor says where real runs execute.
type Executor struct {
	Kind        Val[string] `assay:"kind" enum:"local|slurm" doc:"local subprocess pool or a Slurm cluster"`
	Concurrency Val[int]    `assay:"concurrency" doc:"real runs in flight at once"`
	GPUs        Val[int]    `assay:"gpus" doc:"GPUs available; with run_cost.gpus it bounds concurrency"`
	Slurm       *Slurm      `assay:"slurm,block" doc:"Slurm submission settings"`
	Range       diag.Range  `json:"-"`
}

// Slurm holds sbatch settings.
type Slurm struct {
	Partition Val[string] `assay:"partition" doc:"sbatch --partition"`
	Account   Val[string] `assay:"account" doc:"sbatch --account"`
	QOS       Val[string] `assay:"qos" doc:"sbatch --qos"`
	TimeLimit Val[string] `assay:"time_limit" doc:"sbatch --time, e.g. \"6:00:00\""`
	CPUs      Val[int]    `assay:"cpus" doc:"sbatch --cpus-per-task"`
	Memory    Val[string] `assay:"memory" doc:"sbatch --mem, e.g. \"64G\""`
	Array     Val[bool]   `assay:"array" doc:"submit independent runs of a round as one job array"`
	// PollSeconds paces the one squeue (and sacct) that asks about all of
	// a run's jobs at once.
	PollSeconds Val[float64] `assay:"poll_seconds" unit:"seconds" doc:"least time between two queries of the controller about all of the run's jobs, at least 1 (default 5); while no job changes state the wait doubles, up to 8 times this"`
	Range       diag.Range   `json:"-"`
}

// Sweep expands a spec into variants.
type Sweep struct {
	Mode  Val[string] `assay:"mode" enum:"grid|zip" doc:"grid: every combination; zip: the i-th value of each axis together"`
	Axes  []*Axis     `assay:"axis,blocks" doc:"one axis per swept field; the label is the field's path, e.g. \"critic.screen.votes\""`
	Range diag.Range  `json:"-"`
}

// Axis is one swept field. Name is a path into the spec model.
type Axis struct {
	Name      string     `json:"-"`
	NameRange diag.Range `json:"-"`
	Values    []Literal  `assay:"values" doc:"values the field takes"`
	Range     diag.Range `json:"-"`
}
