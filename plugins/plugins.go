package plugins

import (
	"context"

	"github.com/assay-lang/assay/base/valuetype"
)

// Plugin kinds, as written in a spec's plugin block.
const (
	KindTrainer   = "trainer"
	KindLLM       = "llm"
	KindBenchmark = "benchmark"
)

// Trainer runs one proposal on one task for real and measures the metric.
// Start returns as soon as the run is under way (for a cluster, once the job
// is submitted) so the runtime can journal the handle before waiting; after a
// crash the runtime calls Wait (or Cancel) with a journaled handle instead of
// starting the run again.
//
// Re-attachment: the runtime journals a run's handle durably before it
// waits, and on resume waits on every started run without a result by its
// handle, in whatever trainer process serves it then. So a trainer keeps
// what it needs to answer Wait where a new process finds it (the command
// trainer's run.json and result.json, tinylm's result file in the run's
// WorkDir), and Start of a RunID that already ran returns its handle, in
// any process, without running it again.
//
// Errors: Wait on a run or handle the trainer does not know (its process
// restarted and nothing of the run survives) returns ErrUnknownRun, not a
// failed RunResult: nothing was measured, so the runtime starts the run
// again under the same id without spending an attempt, and counts it as a
// re-execution (status re_executions). An invalid config is ErrConfig
// (permanent).
type Trainer interface {
	Describe(ctx context.Context, req *DescribeRequest) (*DescribeResponse, error)
	Start(ctx context.Context, req *RunRequest) (*RunHandle, error)
	Wait(ctx context.Context, h *RunHandle) (*RunResult, error)
	Cancel(ctx context.Context, h *RunHandle) error
}

// BatchStarter is an optional interface of a Trainer: it starts independent
// runs together (on Slurm, one job array), so a calibration round or a batch
// of seed records is one submission instead of one per run. Handles come
// back one per run, in request order. Like Start it is idempotent per RunID:
// a run that was already started returns its recorded handle and does not
// run again, so the runtime may send a batch again after a crash with the
// runs it has no handle for. A trainer that cannot batch returns
// ErrUnsupported, and the caller starts the runs one by one.
//
// Concurrency: every run of a batch is started at once, so a trainer that
// serves batches bounds how many run at a time itself (Slurm's array
// throttle, a local pool of executor.concurrency slots).
type BatchStarter interface {
	StartBatch(ctx context.Context, req *BatchRequest) (*BatchResponse, error)
}

// BatchRequest is a set of independent runs to start together.
type BatchRequest struct {
	Runs []*RunRequest
}

// BatchResponse holds one handle per run of the request, in its order. When
// StartBatch fails part way, a response may come back with the error: its
// non-nil handles name the runs that did start.
type BatchResponse struct {
	Handles []*RunHandle
}

// DescribeRequest asks a trainer what it can change.
type DescribeRequest struct {
	Config map[string]any
}

// DescribeResponse lists the knobs proposals may edit.
type DescribeResponse struct {
	Knobs []Knob
}

// Knob is one editable setting of a training setup.
type Knob struct {
	Name string
	// Mechanism is the direction this knob belongs to (optimizer,
	// architecture, schedule, regularisation, ...), used by the diversity bonus.
	Mechanism string
	Default   string
	// Values lists the discrete choices a proposal may pick.
	Values []string
	// Type is the kind of a value (valuetype.Number, Integer, Bool or
	// String): with Values, the kind of each; without, what a value is,
	// and when empty the kind the default reads as. Min and Max bound a
	// number, Pattern a string (by default a plain word).
	Type     string   `json:",omitempty"`
	Min, Max *float64 `json:",omitempty"`
	Pattern  string   `json:",omitempty"`
}

// ValueType is the type of the knob's values.
func (k Knob) ValueType() valuetype.Type {
	t := valuetype.Type{Kind: k.Type, Values: k.Values, Min: k.Min, Max: k.Max, Pattern: k.Pattern}
	if t.Kind == "" && len(t.Values) == 0 {
		t.Kind = valuetype.Infer(k.Default)
	}
	return t
}

// Check reports whether v is a value of the knob: nil, or a
// *valuetype.Error saying what the knob takes.
func (k Knob) Check(v string) error { return k.ValueType().Check(v) }

// Proposal is a change to a training setup.
type Proposal struct {
	ID        string
	Text      string // what a human reads
	Mechanism string
	// Edits maps knob name to new value; a code-level trainer may instead
	// read Patch.
	Edits map[string]string
	Patch string
	// Commit is, in source mode, the program this proposal is: its built
	// commit once built, the parent's commit before. The runtime sets it;
	// an answer's own is dropped.
	Commit string `json:",omitempty"`
}

// Checkout names a program for a run in source mode: a commit of a git
// repository on this machine (the candidate's, under refs/assay/, or the
// seed program's for a baseline). A trainer runs its command in a checkout
// of it.
type Checkout struct {
	Repository string
	Commit     string
}

// RunRequest is one real run. RunID is unique within an experiment run and
// is the idempotency key: starting the same RunID twice must not run twice.
type RunRequest struct {
	RunID    string
	Env      string
	Task     string
	Seed     int64
	Proposal Proposal
	// Config is the plugin block's config, verbatim.
	Config map[string]any
	// Executor says where to run (local or slurm) and how.
	Executor ExecutorSpec
	GPUs     int
	// TimeLimitSeconds bounds the run's wall time (0: the trainer's default).
	TimeLimitSeconds float64
	// WorkDir is the directory the runtime set aside for this run's files.
	WorkDir string
	// Source, when set, is the program to run (source mode): a trainer
	// that runs a command checks it out and runs there; nil in knob mode.
	Source *Checkout
	// Update, when set, makes this run a policy update instead of a
	// training run of a proposal: a trainer that can (the command trainer
	// with an update_command) runs the user's RL training command on the
	// batch and writes the new adapter; Proposal, Env and Task are empty.
	// A trainer that cannot train a policy returns ErrUnsupported.
	Update *PolicyJob
}

// PolicyJob is one policy update handed to a training command: the batch
// file the runtime wrote (one JSON object per sample, see docs
// policy-training.md), where the new adapter goes, and the algorithm and
// hyperparameters the plan carries for the loop.
type PolicyJob struct {
	// Step is the policy step (1-based) this update ends.
	Step int
	// BatchFile is the JSONL batch; AdapterDir is the directory the command
	// must write the new adapter (weights) into. Both are absolute paths.
	BatchFile  string
	AdapterDir string
	// BaseModel is the proposer's model; PreviousAdapter the current
	// adapter, the one the update continues from ("" before the first
	// update), served under that name from PreviousAdapterDir. The policy
	// that sampled each line of the batch (pi_old) is on the line: with
	// rollout_every > 1 it can be older.
	BaseModel          string
	PreviousAdapter    string
	PreviousAdapterDir string
	Algorithm          string
	LearningRate       float64
	ClipLow            float64
	ClipHigh           float64
	KLCoef             float64
	TokenLevel         bool
	Epochs             int
	// WeightDecay is the optimiser's decoupled weight decay.
	WeightDecay float64
	// LoRARank is the rank of the LoRA adapter to train; 0: the
	// trainer's own default.
	LoRARank int
}

// ExecutorSpec is the plan's executor section.
type ExecutorSpec struct {
	Kind        string
	Concurrency int
	GPUs        int
	Slurm       map[string]any
}

// RunHandle names a started run.
type RunHandle struct {
	RunID string
	// Handle is the trainer's own id for the run (a Slurm job id, a pid, ...).
	Handle string
}

// Run outcomes.
const (
	StatusFinished   = "finished"
	StatusInfeasible = "infeasible" // the proposal does not build or crashes: a result, not an error
	StatusFailed     = "failed"     // the infrastructure failed; the run may be retried
	StatusPreempted  = "preempted"  // the scheduler took the resources back; requeue
	// StatusError: the program ran and failed in its own code (it exited
	// non-zero or was killed by a signal, not for a time limit, or ended
	// without reporting the metric); Logs holds the end of its output. In
	// source mode the runtime sends a candidate's error back to its
	// builder to repair (the source's repairs); elsewhere it retries it as
	// it does a failed run.
	StatusError = "error"
)

// RunResult is the outcome of a real run.
type RunResult struct {
	RunID   string
	Status  string
	Metric  float64
	Reason  string
	Logs    string
	WorkDir string
	Seconds float64
	// GPUHours actually used, when the trainer knows.
	GPUHours float64
}

// LLM completes role prompts: propose, predict gain, critique, summarize,
// implement. Payload carries structured data (the state, the records in
// context, the proposal) that a client renders into its prompt and that an
// offline model reads directly; the response's Payload is the parsed answer.
type LLM interface {
	Complete(ctx context.Context, req *CompleteRequest) (*CompleteResponse, error)
	// Update applies a policy-gradient step to a trainable proposer. Clients of
	// hosted models, which cannot be trained through this call, return
	// ErrUnsupported.
	Update(ctx context.Context, req *UpdateRequest) (*UpdateResponse, error)
}

// Role kinds.
const (
	RolePropose   = "proposer"
	RolePredict   = "rwm"
	RoleBuild     = "builder"
	RoleImplement = "implementer"
	RoleSummarize = "summarizer"
	RoleCritic    = "critic"
)

// Message is one chat message.
type Message struct {
	Role    string // system | user | assistant
	Content string
}

// BatchReader is an optional interface of a Trainer served in process:
// one whose ReadsBatch returns false never reads a policy update's batch
// file, and the runtime neither writes it nor names it (PolicyJob.BatchFile
// is empty). A trainer without it, every trainer behind the plugin
// protocol among them, gets the file.
type BatchReader interface {
	ReadsBatch() bool
}

// InputReader is an optional interface of an LLM served in process: one
// whose ReadsInput returns true reads CompleteRequest.Input and gets no
// Payload.
type InputReader interface {
	ReadsInput() bool
}

// CompleteRequest is one LLM call.
type CompleteRequest struct {
	Role        string // a role kind
	Model       string
	Temperature float64
	Seed        int64
	MaxTokens   int
	// MaxPromptTokens is the most prompt tokens one request may send (the
	// role's high tokens.in; 0: no limit). A client that renders the
	// prompt counts it before sending, by a documented upper bound (the
	// openai plugin: one token per byte), and refuses a longer prompt, so
	// that what the runtime holds against the dollar cap is a real bound.
	MaxPromptTokens int
	Messages        []Message
	// Payload is JSON: the structured input of the role.
	Payload []byte
	// Input is the same structured input as a Go value (a request type of
	// package payload), for an LLM served in process. The runtime leaves
	// Payload nil for an LLM that says it reads Input (InputReader), so a
	// world model's context of hundreds of records is not encoded per
	// call; it never crosses a process boundary.
	Input any
	// State is the proposer policy's checkpoint from the last Update (nil
	// for the initial policy), so a restarted plugin resumes exactly.
	State []byte
	// Config is the plugin block's config, verbatim (base URL, limits, ...).
	Config map[string]any
}

// Usage counts tokens. A response's Usage is what every request the call
// sent may be billed for, retried and timed-out attempts included.
type Usage struct {
	In  int
	Out int
}

// CompleteResponse is the model's answer.
type CompleteResponse struct {
	Text    string
	Payload []byte // JSON: the parsed answer
	Usage   Usage
	// Output is the parsed answer as a Go value, from an LLM served in
	// process: the response type of package payload that Payload decodes
	// to, holding nothing the caller's request holds. The runtime takes it
	// as it is instead of decoding Payload, which the journal still keeps.
	// Nothing sets it across the plugin protocol.
	Output any
}

// Sample is one scored proposal of a group for a policy update.
type Sample struct {
	State     string
	Proposal  Proposal
	Advantage float64
	// Group names the state the sample's group was sampled at: samples of
	// one group share it (GRPO and DAPO normalise within a group).
	Group string
	// Reward is the shaped reward the advantage was computed from.
	Reward float64
	// Completion is the proposer's answer exactly as the model returned it
	// (CompleteResponse.Text; its parsed Payload when a plugin returned no
	// text): the text a policy update reinforces. Proposal is that answer
	// as parsed, before any builder turned it into a runnable one.
	Completion string
	// Policy is the policy that sampled the proposal: pi_old of the
	// update's ratio. With rollout_every > 1 (or a refill) it can be older
	// than the policy the update starts from.
	Policy SamplePolicy
}

// SamplePolicy names the policy a sample was drawn from: the adapter the
// proposer's endpoint served it under and the directory its weights are
// in, and the policy step that trained it; all zero for the base model.
type SamplePolicy struct {
	Adapter string
	Path    string
	Step    int
}

// UpdateRequest is one policy-gradient step.
type UpdateRequest struct {
	Model        string
	LearningRate float64
	// Algorithm names the loop's policy-gradient algorithm ("grpo",
	// "dapo"), for the plugin's records; "" is a plain policy-gradient
	// step. What the update does is set by the hyperparameters below, which
	// the plan carries per loop.
	Algorithm string
	// ClipLow and ClipHigh bound the ratio pi/pi_old of a sampled proposal
	// to [1 - ClipLow, 1 + ClipHigh] (PPO clipping): past the bound on the
	// side its advantage pushes, a sample stops pushing. GRPO clips
	// symmetrically (0.2, 0.2); DAPO decouples the bounds (0.2, 0.28:
	// clip-higher), so a low-probability good proposal can grow further.
	// 0 leaves that side unbounded.
	ClipLow, ClipHigh float64
	// KLCoef is beta of the penalty KL(pi || pi_ref) toward the reference
	// (initial) policy: GRPO 0.04; DAPO drops it (0).
	KLCoef float64
	// TokenLevel averages the loss over every token of the batch (DAPO), so
	// a longer proposal weighs more; otherwise each sample weighs the same
	// (GRPO's per-sample mean).
	TokenLevel bool
	// Epochs is how many gradient passes the update makes over its samples
	// (the papers' inner iterations mu); pi/pi_old departs from 1, and
	// clipping takes hold, only after the first. 0 means 1.
	Epochs int
	// WeightDecay is the optimiser's decoupled weight decay (AdamW's);
	// 0: none.
	WeightDecay float64
	Samples     []Sample
	State       []byte
	// Config is the plugin block's config, verbatim.
	Config map[string]any
	// Adapter, when set, says the update was trained elsewhere (by the
	// loop's update command): the plugin points the role's endpoint at the
	// new adapter (a served LLM loads it) and returns a State naming it, so
	// later calls with that State use it. Samples are then for the record
	// only. A plugin that cannot serve an adapter returns ErrUnsupported.
	Adapter *Adapter
}

// Adapter is a trained policy adapter: the name requests will use as model
// and the directory its weights are in.
type Adapter struct {
	Name string
	Path string
}

// UpdateResponse returns the new checkpoint.
type UpdateResponse struct {
	State []byte
	// Stats such as the policy's entropy, for reports.
	Stats map[string]float64
}

// Benchmark lists environments and tasks.
type Benchmark interface {
	Tasks(ctx context.Context, req *TasksRequest) (*TasksResponse, error)
}

// TasksRequest asks for an environment's tasks.
type TasksRequest struct {
	Env    string
	Config map[string]any
}

// TaskInfo is one task with its split, baseline and scale.
type TaskInfo struct {
	Name     string
	Split    string
	Baseline float64
	Scale    float64
	Metric   string
	Minimize bool
}

// TasksResponse lists tasks.
type TasksResponse struct {
	Tasks []TaskInfo
}
