package plan

import (
	"encoding/json"
	"math"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/formula/tree"
)

// FormatVersion is bumped whenever the JSON shape of a Plan changes.
const FormatVersion = "1.7"

// Plan is a compiled experiment. Without a sweep it has one variant.
type Plan struct {
	FormatVersion string `json:"format_version"`
	Hash          string `json:"hash"`
	Name          string `json:"name"`
	// Overrides are the fields set from the command line (--set PATH=VALUE),
	// by path, as typed by the field; they are part of the hash.
	Overrides map[string]any `json:"overrides,omitempty"`
	Variants  []*Variant     `json:"variants"`
	// Missing are the variables a run needs that are still empty (a
	// variable's supply): check and run refuse the plan (compiler.Unready).
	Missing []Missing `json:"missing,omitempty"`
}

// Count is a number of calls (or runs, steps, hours) as low / expected / high,
// where an assumption such as a critic's routed fraction can vary. Where
// nothing bounds a figure from above, Reason says why and High is +Inf; in
// JSON high is then null, with the reason beside it.
type Count struct {
	Low      float64
	Expected float64
	High     float64
	Reason   string
}

// Exact is a Count with no uncertainty.
func Exact(n float64) Count { return Count{Low: n, Expected: n, High: n} }

// Unbounded is a Count with no upper bound, for the reason given.
func Unbounded(low, expected float64, reason string) Count {
	return Count{Low: low, Expected: expected, High: math.Inf(1), Reason: reason}
}

// Bounded reports whether the count has an upper bound.
func (c Count) Bounded() bool { return c.Reason == "" && !math.IsInf(c.High, 1) }

// Add returns c + o component-wise; unbounded if either is.
func (c Count) Add(o Count) Count {
	out := Count{Low: c.Low + o.Low, Expected: c.Expected + o.Expected, High: c.High + o.High, Reason: c.Reason}
	if out.Reason == "" {
		out.Reason = o.Reason
	}
	return out
}

// Scale returns c * k component-wise (k >= 0). Scaling by zero bounds an
// unbounded count: none of an unbounded number of free things costs
// anything.
func (c Count) Scale(k float64) Count {
	if k == 0 {
		return Count{}
	}
	return Count{Low: c.Low * k, Expected: c.Expected * k, High: c.High * k, Reason: c.Reason}
}

// Mul returns the product of two non-negative counts: low by low,
// expected by expected, high by high.
func (c Count) Mul(o Count) Count {
	if c.IsZero() || o.IsZero() {
		return Count{}
	}
	out := Count{Low: c.Low * o.Low, Expected: c.Expected * o.Expected, High: c.High * o.High, Reason: c.Reason}
	if out.Reason == "" {
		out.Reason = o.Reason
	}
	return out
}

// CapHigh bounds the high figure (and the expected one) by cap: a cap the
// runtime keeps. It bounds an unbounded count too.
func (c Count) CapHigh(cap float64) Count {
	if c.High > cap {
		c.High, c.Reason = cap, ""
	}
	c.Expected = math.Min(c.Expected, cap)
	c.Low = math.Min(c.Low, cap)
	return c
}

// IsZero reports whether every component is zero.
func (c Count) IsZero() bool { return c == Count{} }

type countJSON struct {
	Low      float64  `json:"low"`
	Expected float64  `json:"expected"`
	High     *float64 `json:"high"`
	Reason   string   `json:"reason,omitempty"`
}

// MarshalJSON writes low, expected and high; an unbounded high is null,
// with the reason.
func (c Count) MarshalJSON() ([]byte, error) {
	j := countJSON{Low: c.Low, Expected: c.Expected, Reason: c.Reason}
	if c.Bounded() {
		j.High = &c.High
	} else if j.Reason == "" {
		j.Reason = "no upper bound"
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, or one number (plans of
// format 1.2 and before wrote hours and tokens per call so).
func (c *Count) UnmarshalJSON(b []byte) error {
	var n float64
	if json.Unmarshal(b, &n) == nil {
		*c = Exact(n)
		return nil
	}
	var j countJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Count{Low: j.Low, Expected: j.Expected, Reason: j.Reason}
	if j.High == nil {
		c.High = math.Inf(1)
		if c.Reason == "" {
			c.Reason = "no upper bound"
		}
	} else {
		c.High = *j.High
	}
	return nil
}

// Variant is one fully specified experiment (one point of a sweep).
type Variant struct {
	// Name is "default" without a sweep, else the axis values, e.g.
	// "votes=8,threshold=0.25".
	Name      string             `json:"name"`
	Overrides map[string]any     `json:"overrides,omitempty"`
	Seed      int64              `json:"seed"`
	Plugins   []*Plugin          `json:"plugins"`
	Prices    map[string]float64 `json:"gpu_prices"`
	Envs      []*Environment     `json:"environments"`
	Roles     []*Role            `json:"roles"`
	Rewards   []*Reward          `json:"rewards,omitempty"`
	Critics   []*Critic          `json:"critics,omitempty"`
	Loops     []*Loop            `json:"loops"`
	Phases    []*Phase           `json:"phases"`
	Budget    Budget             `json:"budget"`
	Executor  Executor           `json:"executor"`

	// Assumptions are the figures the estimate takes as given rather than
	// derives: shares, costs and durations typed into the spec, or left at
	// their defaults.
	Assumptions []*Assumption `json:"assumptions,omitempty"`
}

// Assumption is one figure the estimate assumes, with its range. Source is
// where the spec states it; From, when set, says where else it came from
// ("preset NAME", "default", "run ID"); neither: a compiler default.
type Assumption struct {
	// Name is the figure's path, e.g. "critic.screen.routed_share".
	Name  string `json:"name"`
	Value Count  `json:"value"`
	// Affects names the estimate's figures that rest on it.
	Affects string `json:"affects"`
	From    string `json:"from,omitempty"`
	// Note says why a run's measurement did not replace the figure.
	Note   string     `json:"note,omitempty"`
	Source diag.Range `json:"source"`
}

// Evaluation is the held-out evaluation protocol. Arms lists the proposer
// roles evaluated on the same states, the trained policy first; Predictor
// is the world model that predicts every evaluated proposal (empty: none).
type Evaluation struct {
	// Proposer and Builder are the roles the phase calls, by name
	// (Builder may be empty): the first arm's proposer and its builder.
	Proposer string `json:"proposer"`
	Builder  string `json:"builder,omitempty"`
	Split    string `json:"split"`
	AvgAt    int    `json:"avg_at,omitempty"`
	BestAt   int    `json:"best_at,omitempty"`
	// K is the proposals each arm makes on each state, max(avg_at,
	// best_at); States is the states of each task (at least 1).
	K         int       `json:"k"`
	States    int       `json:"states"`
	Normalize string    `json:"normalize"`
	Arms      []EvalArm `json:"arms"`
	Predictor string    `json:"predictor,omitempty"`
}

// Eval arm names.
const (
	ArmPolicy = "policy" // the evaluated proposer's latest policy
	ArmBase   = "base"   // a proposer at its untrained policy
	ArmICL    = "icl"    // a proposer at its untrained policy, records in its prompt
)

// EvalArm is one arm of an evaluation: a proposer role, whether it runs at
// its untrained policy, and how many real records its prompt carries.
type EvalArm struct {
	Name      string `json:"name"`
	Proposer  string `json:"proposer"`
	Untrained bool   `json:"untrained,omitempty"`
	Records   int    `json:"records,omitempty"`
}

// Plugin is a resolved plugin declaration.
type Plugin struct {
	Name    string         `json:"name"`
	Kind    string         `json:"kind"`
	Source  string         `json:"source"`
	Version string         `json:"version,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
}

// Environment is a resolved environment with its tasks listed.
type Environment struct {
	Name      string `json:"name"`
	Family    string `json:"family,omitempty"`
	Metric    string `json:"metric"`
	Direction string `json:"direction"`
	Trainer   string `json:"trainer"`
	Benchmark string `json:"benchmark,omitempty"`
	GPU       string `json:"gpu"`
	GPUs      int    `json:"gpus"`
	// Hours and GPUHours are one run's, as assumed: the estimate spreads
	// them, and the runtime holds a run's caps at their high figure.
	Hours    Count `json:"hours"`
	GPUHours Count `json:"gpu_hours"`
	// TimeLimitSeconds is each real run's wall-time limit: its high hours
	// (0: none declared). A trainer stops a run at it, so a run cannot
	// spend more than the caps hold for it.
	TimeLimitSeconds float64 `json:"time_limit_seconds,omitempty"`
	Tasks            []*Task `json:"tasks"`
	// Missing is what the environment's suite needs before a run (its
	// checkout, when suite_root is empty); each task's own are the task's.
	Missing []Missing  `json:"missing,omitempty"`
	Source  diag.Range `json:"source"`
}

// Task is one task. Baseline and Scale are nil when a benchmark plugin
// supplies them at run time.
type Task struct {
	Name     string   `json:"name"`
	Split    string   `json:"split"`
	Baseline *float64 `json:"baseline,omitempty"`
	Scale    *float64 `json:"scale,omitempty"`
	// Direction is the task's metric direction, Minimize or Maximize: a
	// gain is a fall of the metric or a rise.
	Direction string `json:"direction"`
	// The rest is what a task-suite manifest says of a task it lists
	// (docs/task-suites.md); empty for a task the spec writes.
	Domain      string `json:"domain,omitempty"`
	Description string `json:"description,omitempty"`
	// Criteria are the task's own criteria for a critic, from the
	// manifest (CriteriaFrom: "inline" or its criteria_file): a critic's
	// .Criteria on this task's calls, over its role's prompt criteria.
	Criteria     string `json:"criteria,omitempty"`
	CriteriaFrom string `json:"criteria_from,omitempty"`
	// Metric is the task's own name for its metric, when the suite gives one.
	Metric string  `json:"metric,omitempty"`
	Bounds *Bounds `json:"bounds,omitempty"`
	// CriticSplit is what the task's pairs trained a critic on, as the
	// suite marks it ("sft", "grpo", "heldout"); Unscored leaves the task
	// out of the report's averages.
	CriticSplit string    `json:"critic_split,omitempty"`
	Unscored    bool      `json:"unscored,omitempty"`
	Missing     []Missing `json:"missing,omitempty"`
	// Command is the task's evaluation command, an argv: the command
	// trainer runs it, in the scaffold's repository directory, instead of
	// its own command (config task_command and task_dir).
	Command  []string  `json:"command,omitempty"`
	Scaffold *Scaffold `json:"scaffold,omitempty"`
	// Source is the task's seed program (the environment's source block
	// with the task's fields over it); nil: proposals are knob edits.
	// Its JSON key is not "source", which names ranges the hash drops.
	Source *Source `json:"seed_program,omitempty"`
}

// Source is a seed program, resolved: candidates are patches of Editable
// paths of Repository at Revision, each built in its own git worktree.
type Source struct {
	// Repository is the repository's absolute path.
	Repository string `json:"repository"`
	// Revision is as the spec wrote it (default HEAD); a run resolves it
	// to a commit id when it starts and journals that id.
	Revision string   `json:"revision"`
	Editable []string `json:"editable"`
	// Build is the argv run in a candidate's worktree after its patch
	// applies (empty: none); never through a shell.
	Build []string `json:"build,omitempty"`
	// BuildInherits names the variables the build inherits from the
	// environment assay runs in, and BuildEnv (KEY=VALUE) those set for
	// it: the job environment of the task's trainer, nothing else of
	// Assay's (see compiler.buildEnv).
	BuildInherits []string `json:"build_inherits,omitempty"`
	BuildEnv      []string `json:"build_env,omitempty"`
	// Repairs is how many times a patch that does not apply, or whose
	// build fails, goes back to the builder with the error.
	Repairs       int  `json:"repairs"`
	KeepWorktrees bool `json:"keep_worktrees,omitempty"`
	// Import, when set, says Repository is a directory (not a
	// repository's top) whose files a run imports into a repository of
	// its own; Revision is then empty.
	Import *Import    `json:"import,omitempty"`
	At     diag.Range `json:"source"`
}

// Import is how a source's directory is imported: the paths left out,
// and a directory laid over it ("" for none), absolute.
type Import struct {
	Exclude []string `json:"exclude,omitempty"`
	Overlay string   `json:"overlay,omitempty"`
}

// Bounds are the worst and best practical scores of a task's metric, low
// below high whatever its direction; they normalise a score to [0, 1].
type Bounds struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Normalised is score on the task's bounds, 1 at the better bound and 0
// at the worse (minimize: the high bound is the worse); ok is false for a
// task without bounds. It is not clipped: a score past a bound reads so.
func (t *Task) Normalised(score float64, minimize bool) (n float64, ok bool) {
	if t == nil || t.Bounds == nil || !(t.Bounds.High > t.Bounds.Low) {
		return 0, false
	}
	n = (score - t.Bounds.Low) / (t.Bounds.High - t.Bounds.Low)
	if minimize {
		n = 1 - n
	}
	return n, true
}

// Scaffold is a suite task's research scaffold in knob mode (in source
// mode it is the task's Source instead): the repository directory
// (relative to the working directory the plan was compiled in, or
// absolute) where its command runs, the pinned revision (empty: the
// loader refuses one in knob mode, which runs the directory as it is) and
// the paths a change may edit, as the manifest gives them.
type Scaffold struct {
	Repository string   `json:"repository"`
	Revision   string   `json:"revision,omitempty"`
	Editable   []string `json:"editable,omitempty"`
}

// Metric directions.
const (
	Minimize = "minimize"
	Maximize = "maximize"
)

// Role is a resolved LLM role.
type Role struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"`
	Plugin      string  `json:"plugin"`
	Model       string  `json:"model,omitempty"`
	Temperature float64 `json:"temperature"`
	// TokensIn and TokensOut are one call's, as assumed: the estimate
	// spreads them; a call asks for at most TokensOut.High completion
	// tokens, and the dollar cap holds a call at the high figures.
	TokensIn  Count   `json:"tokens_in"`
	TokensOut Count   `json:"tokens_out"`
	PriceIn   float64 `json:"usd_per_mtok_in"`
	PriceOut  float64 `json:"usd_per_mtok_out"`
	// Attempts is how many requests one call may send, each of which a
	// provider may bill: its plugin's max_retries + 1 (1 for a plugin
	// without retries). The dollar cap holds a call at Attempts times its
	// high tokens at its prices.
	Attempts    int     `json:"attempts,omitempty"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	// Prompt is the role's prompt templates, Assay's defaults or the
	// spec's, as the compiler resolved and checked them: a prompt file's
	// text is part of the plan and its hash.
	Prompt *Prompt `json:"prompt,omitempty"`
	// Answer is how the role's answer is read; nil: as JSON, never asked
	// again.
	Answer *Answer    `json:"answer,omitempty"`
	Source diag.Range `json:"source"`
}

// Prompt is a role's prompt: Go text/template texts of its system and
// user messages over its kind's variables (base/prompt), and where
// each came from ("default v6", "inline" or the file's path as the spec
// writes it).
type Prompt struct {
	System     string `json:"system"`
	User       string `json:"user"`
	SystemFrom string `json:"system_from"`
	UserFrom   string `json:"user_from"`
	// Criteria are a critic's criteria, which its templates read as
	// .Criteria; CriteriaFrom says where they came from.
	Criteria     string `json:"criteria,omitempty"`
	CriteriaFrom string `json:"criteria_from,omitempty"`
	// TaskCriteria are a critic's criteria per task name (criteria_dir),
	// which its templates read as .Criteria when it judges that task, in
	// place of Criteria.
	TaskCriteria map[string]string `json:"task_criteria,omitempty"`
	// CriteriaRole is the summarizer role asked once per task for the
	// criteria of a task that neither the manifest nor TaskCriteria gives.
	CriteriaRole string `json:"criteria_role,omitempty"`
}

// Answer is how a role's answer is read. Format "pattern" (critics): the
// label is Pattern's first group in the answer's text; "text" and "list"
// (proposers): the answer is one idea in free text, or a list of them
// (payload.ParseIdeas); "json": the role's JSON object. An answer that
// cannot be read is asked again up to Reasks times, then counted as
// unparsed. Verdicts, when set, read the label from Pattern's named
// groups instead of its first group.
type Answer struct {
	Format   string    `json:"format"`
	Pattern  string    `json:"pattern,omitempty"`
	Verdicts []Verdict `json:"verdicts,omitempty"`
	Reasks   int       `json:"reasks,omitempty"`
}

// Verdict is one label of a verdict read by named groups: the answer is
// Label when each of Groups reads its value (case-insensitively) in the
// pattern's first match. Exactly one Verdict of a role matches a read
// answer; none or several leave it unparsed.
type Verdict struct {
	Label  string       `json:"label"`
	Groups []GroupValue `json:"groups"`
}

// GroupValue is a named group of a verdict pattern and the value it reads,
// sorted by Group within a Verdict.
type GroupValue struct {
	Group string `json:"group"`
	Value string `json:"value"`
}

// Formula is a formula the compiler parsed and type-checked: its text, for
// people, and its tree, which the runtime evaluates without parsing.
type Formula struct {
	Source string `json:"source"`
	Tree   *Node  `json:"tree"`
}

// Node is one operation of a formula's tree: the type package formula
// builds and evaluates, declared once in package lang/formula/tree.
type Node = tree.Node

// Reward is resolved reward shaping: every default filled, every formula
// checked. Clip 0 means no clip (no formula of the reward reads c).
type Reward struct {
	Name            string     `json:"name"`
	GainFrom        string     `json:"gain_from"` // predicted | real | critic
	Predictor       string     `json:"predictor,omitempty"`
	Normalize       string     `json:"normalize"`
	Clip            float64    `json:"clip,omitempty"`
	Value           Formula    `json:"value"`
	RepeatPenalty   float64    `json:"repeat_penalty"`
	Infeasible      Formula    `json:"infeasible"`
	DiversityBy     string     `json:"diversity_by,omitempty"`
	DiversityWeight float64    `json:"diversity_weight"`
	Source          diag.Range `json:"source"`
}

// Critic is resolved critic voting. Route is nil when the critic routes
// nothing to real runs by formula.
type Critic struct {
	Name      string     `json:"name"`
	Role      string     `json:"role"`
	Votes     int        `json:"votes"`
	Labels    string     `json:"labels"`
	Aggregate string     `json:"aggregate"`
	Tie       string     `json:"tie"`
	Threshold float64    `json:"threshold"`
	Route     *Formula   `json:"route,omitempty"`
	Routed    Count      `json:"routed_fraction"`
	Source    diag.Range `json:"source"`
}

// Loop is a resolved loop with its bindings: the roles it calls by name, the
// critic that judges its candidates and where its reward's gain comes from,
// all decided by the compiler.
type Loop struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // rl | evolution
	Algorithm   string `json:"algorithm,omitempty"`
	Steps       Count  `json:"steps"`
	UntilBudget bool   `json:"until_budget,omitempty"`
	// RunSteps is the steps an RL loop runs, an instruction where Steps is
	// the estimate's count: every one of them for a loop with fixed steps;
	// at most these for a loop that spends the budget, which stops sooner
	// when a refresh no longer fits, and 0 there when nothing bounds its
	// steps (W_UNBOUNDED), so the budget alone stops it.
	RunSteps int `json:"run_steps,omitempty"`
	// MaxSteps bounds the steps of a loop that spends the budget; 0: none.
	MaxSteps          int    `json:"max_steps,omitempty"`
	StatesPerStep     int    `json:"states,omitempty"`
	ProposalsPerState int    `json:"proposals_per_state,omitempty"`
	RolloutEvery      int    `json:"rollout_every,omitempty"`
	ZeroVariance      string `json:"zero_variance,omitempty"`
	// ResampleRounds is dynamic sampling's bound: a step whose groups were
	// dropped for zero variance samples as many fresh groups again, at
	// most this many extra rounds (0: no refill).
	ResampleRounds int `json:"resample_rounds,omitempty"`
	// Update, when set, trains the proposer with the user's command after
	// every step that has samples, and points its endpoint at the adapter
	// the command writes; nil: the proposer's own plugin updates it.
	Update *PolicyUpdate `json:"update,omitempty"`
	Reward string        `json:"reward,omitempty"`
	// RewardSource is the reward's gain_from: predicted, real or critic.
	RewardSource string `json:"reward_source,omitempty"`
	Screen       string `json:"screen,omitempty"`
	// Critic judges each candidate (k votes): the screen, or the critic
	// that labels a critic-sourced reward. Empty: no critic is called.
	Critic string `json:"critic,omitempty"`
	// Routes: the critic's verdict sends candidates to real runs (an RL
	// screen, or an evolution loop that verifies routed ideas).
	Routes bool `json:"routes,omitempty"`
	// AuditShare is the share of an RL screen's unrouted candidates
	// verified by real runs anyway: the floor of it times each screened
	// batch's unrouted ones, chosen by the seed (docs/plan.md).
	AuditShare   float64 `json:"audit_share,omitempty"`
	LearningRate float64 `json:"learning_rate,omitempty"`
	// Roles the loop calls, by name; Builder and Summarizer may be empty.
	Proposer   string `json:"proposer"`
	Builder    string `json:"builder,omitempty"`
	Summarizer string `json:"summarizer,omitempty"`
	// Predictor is the world model role of a predicted reward.
	Predictor string `json:"predictor,omitempty"`
	// RunsPerRefresh is the real runs one rollout refresh of an RL loop
	// makes; the estimate counts steps with it, and the runtime starts a
	// refresh only while the budget pays for its low figure.
	RunsPerRefresh *Count `json:"runs_per_refresh,omitempty"`
	Islands        int    `json:"islands,omitempty"`
	Rounds         int    `json:"rounds,omitempty"`
	MigrationEvery int    `json:"migration_every,omitempty"`
	Ideas          int    `json:"ideas_per_round,omitempty"`
	Verifications  int    `json:"verifications_per_round,omitempty"`
	Select         string `json:"select,omitempty"`
	// MigrationRate is the share of an island's programs, best first, that
	// migrate to the next island (at least one program).
	MigrationRate float64 `json:"migration_rate,omitempty"`
	// TopPrograms and DiversePrograms are the inspirations a proposer sees
	// beside its parent: the island's best programs, and elites of other
	// cells of the MAP-Elites archive.
	TopPrograms     int `json:"top_programs,omitempty"`
	DiversePrograms int `json:"diverse_programs,omitempty"`
	// Features are the MAP-Elites archive's dimensions, sorted by name;
	// none: no archive.
	Features []Feature `json:"features,omitempty"`
	// ChildrenPerParent, for an evolution loop, is the second stage of
	// the critics paper's two-stage pair collection: after a task's
	// rounds, each program its islands verified gets this many children
	// proposed against it, built and run for real, unscreened, which no
	// island takes; 0: none.
	ChildrenPerParent int `json:"children_per_parent,omitempty"`
	// NewParent is how a parent-conditioned RL loop changes a task's
	// parent: "all_improve" or "never".
	NewParent string `json:"new_parent,omitempty"`
	// Repairs is how many builder repairs a candidate whose build fails
	// gets.
	Repairs int        `json:"repairs,omitempty"`
	Split   string     `json:"split"`
	Source  diag.Range `json:"source"`

	// The policy update of an RL loop, from its algorithm (Algorithms has
	// each one's values) and what its update block sets: the runtime
	// sends them, with Algorithm, in every plugins.UpdateRequest of the
	// loop and every update command's job.
	ClipLow     float64 `json:"clip_low,omitempty"`
	ClipHigh    float64 `json:"clip_high,omitempty"`
	KLCoef      float64 `json:"kl_coef,omitempty"`
	TokenLevel  bool    `json:"token_level,omitempty"`
	Epochs      int     `json:"epochs,omitempty"`
	WeightDecay float64 `json:"weight_decay,omitempty"`
	// LoRARank is the adapter's rank the update command is asked for
	// (update.lora_rank); 0: the command's own default.
	LoRARank int `json:"lora_rank,omitempty"`
}

// Feature is one dimension of a MAP-Elites archive: complexity (edits of
// a program), diversity (its mean distance to the island's other
// programs), mechanism (its mechanism direction) or score (its gain
// within the island's range), cut into Bins cells.
type Feature struct {
	Name string `json:"name"`
	Bins int    `json:"bins"`
}

// PolicyUpdate is a loop's policy training outside Assay: the trainer
// plugin whose update_command runs each update, what one update costs, and
// the name prefix its adapters are served under.
type PolicyUpdate struct {
	Trainer string  `json:"trainer"`
	GPU     string  `json:"gpu"`
	GPUs    int     `json:"gpus"`
	Hours   float64 `json:"hours"`
	// GPUHours and USD are one update's cost, reserved before it starts.
	GPUHours float64 `json:"gpu_hours"`
	USD      float64 `json:"usd"`
	// TimeLimitSeconds is each update's wall-time limit: its hours, in
	// whole seconds rounded up, as a real run's (0: none declared). The
	// trainer stops the update at it, so it cannot spend more than the
	// caps hold for it.
	TimeLimitSeconds float64 `json:"time_limit_seconds,omitempty"`
	// Adapter is the prefix: update N is served as Adapter-step-N.
	Adapter string `json:"adapter"`
	// Updates is how many updates the loop makes: one per step with
	// samples (a step whose groups are all dropped makes none).
	Updates Count      `json:"updates"`
	Source  diag.Range `json:"source"`
}

// HoldBack is what a phase may not spend of the budget's caps, because the
// phases after it need it: real runs, GPU-hours and dollars in the units
// the runtime reserves (a real run at its environment's high GPU-hours, an
// LLM call at what it holds, every attempt at the role's high tokens, a
// policy update at its cost). The compiler decides it (see
// compiler.holdBack): of GPU-hours and dollars, what the later phases may
// spend at their high figures (a loop's low); of real runs, up to their
// high figures (their low, for a loop that spends the budget) as long as
// the phases up to this one keep room for their own low figures. Zero
// for a figure whose cap is not set.
type HoldBack struct {
	RealRuns int     `json:"real_runs,omitempty"`
	GPUHours float64 `json:"gpu_hours,omitempty"`
	USD      float64 `json:"usd,omitempty"`
}

// TaskRef names one task of one environment.
type TaskRef struct {
	Env  string `json:"env"`
	Task string `json:"task"`
}

// Calls counts the plugin calls of a phase.
type Calls struct {
	// RealRuns per environment name.
	RealRuns map[string]Count `json:"real_runs,omitempty"`
	// LLM calls per role name (critic votes count one call each).
	LLM map[string]Count `json:"llm,omitempty"`
	// Candidates is the number of proposals that receive a reward or a verdict.
	Candidates Count `json:"candidates"`
}

// Budget holds the hard caps; zero means not capped.
type Budget struct {
	RealRuns  int     `json:"real_runs,omitempty"`
	GPUHours  float64 `json:"gpu_hours,omitempty"`
	USD       float64 `json:"usd,omitempty"`
	WallHours float64 `json:"wall_hours,omitempty"`
	// Source maps a cap's name (real_runs, gpu_hours, usd, wall_hours) to
	// where the spec declares it, for diagnostics about the cap.
	Source map[string]diag.Range `json:"source,omitempty"`
}

// Executor says where real runs go.
type Executor struct {
	Kind        string         `json:"kind"`
	Concurrency int            `json:"concurrency"`
	GPUs        int            `json:"gpus,omitempty"`
	Slurm       map[string]any `json:"slurm,omitempty"`
}

// ComputeHash sets p.Hash to the SHA-256 of p's JSON with every source
// range removed, so it depends on meaning alone.
func (p *Plan) ComputeHash() {
	p.Hash = ""
	p.Hash = meaningHash(p)
}

// VariantHash is the hash of the plan as it applies to its variant named
// name: the plan with that variant alone, its own settings (sweep values,
// seed) included, computed as ComputeHash computes p.Hash. A plan of one
// variant has that variant's hash as its own, so only the variants of a
// sweep hash apart from their plan. It is "" when p has no such variant.
func (p *Plan) VariantHash(name string) string {
	for _, v := range p.Variants {
		if v.Name == name {
			one := *p
			one.Hash, one.Variants = "", []*Variant{v}
			return meaningHash(&one)
		}
	}
	return ""
}
