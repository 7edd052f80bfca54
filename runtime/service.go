package runtime

import (
	"context"
	"math"
	"time"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// taskInfo is a task with its resolved baseline and scale.
type taskInfo struct {
	Env      string
	Name     string
	Split    string
	Baseline float64
	Scale    float64
	Minimize bool
	// Command and Dir are a suite task's evaluation command (argv) and the
	// directory it runs in; the trainer's config carries them to it.
	Command []string
	Dir     string
	// Criteria are the task's own criteria for a critic (the manifest's);
	// empty: the critic role's.
	Criteria string
	// Description and Domain are what the manifest says of the task, sent
	// to a critic's criteria_role.
	Description, Domain string
	// src is the task's seed program in source mode; nil in knob mode.
	src *seedProgram
}

// gain is the signed improvement of a metric over the task's baseline.
func (t taskInfo) gain(metric float64) float64 {
	if t.Minimize {
		return t.Baseline - metric
	}
	return metric - t.Baseline
}

// record is a (task, proposal, outcome) triple in the world model's context
// or the state pool.
type record = payload.Record

type service struct {
	ctx  context.Context
	v    *plan.Variant
	j    *journal.Journal
	dir  string
	opts Options
	// best are the best programs the last phase's end marked.
	best []BestProgram

	budget   *Budget
	progress *progress

	// plugins are the plan's plugins, supervised.
	plugins *pluginSet

	// The plan's blocks by name: the runtime looks nothing up by kind.
	envs    map[string]*plan.Environment
	roles   map[string]*plan.Role
	rewards map[string]*plan.Reward
	critics map[string]*plan.Critic
	loops   map[string]*plan.Loop
	config  map[string]map[string]any // plugin config by plugin name
	tasks   taskList
	knobs   map[string][]plugins.Knob
	// policy is each proposer role's current checkpoint.
	policy policyStore

	measured *measured

	// records are the world model's context and the state pool.
	records *recordStore

	// n is what the run counts, changed only through its methods.
	n tally

	// charged is what finished real runs are charged as measured (see
	// hours.go).
	charged charges

	// While batching, reservations are collected and journaled in one
	// transaction before any of their runs starts.
	batching  bool
	batchKeys []string
	batchRes  []journal.Reservation
	startedAt time.Time
	// cuts are the phases a cap stopped or shrank (see capcut.go).
	cuts *cutLog
	// watch counts what the running phase built, parsed and ran, and
	// failures are how a phase measured nothing (phasefail.go).
	watch    *phaseWatch
	failures []PhaseFailure
	// replay is the journal a replayed run takes its answers from.
	replay *replaySource
	// genCriteria are the criteria critics' criteria_role generated, per
	// critic and task (criteria_gen.go).
	genCriteria genCriteria
}

func newService(ctx context.Context, v *plan.Variant, j *journal.Journal, dir string, opts Options) *service {
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	r := &service{ctx: ctx, v: v, j: j, dir: dir, opts: opts,
		budget:   NewBudget(v.Budget),
		envs:     map[string]*plan.Environment{},
		roles:    map[string]*plan.Role{},
		rewards:  map[string]*plan.Reward{},
		critics:  map[string]*plan.Critic{},
		loops:    map[string]*plan.Loop{},
		config:   map[string]map[string]any{},
		knobs:    map[string][]plugins.Knob{},
		policy:   policyStore{by: map[string][]byte{}},
		measured: newMeasured(),
		records:  &recordStore{poolBy: map[string][]record{}},
		watch:    newPhaseWatch(),
	}
	r.cuts = &cutLog{phases: v.Phases, loops: r.loops, skipped: map[string]string{}}
	for _, e := range v.Envs {
		r.envs[e.Name] = e
	}
	var breach string
	if j.Meta(metaBreach, &breach) && breach != "" {
		r.budget.breach(breach)
	}
	for _, run := range j.Runs() {
		r.budget.restore(run.Reservation.GPUHours, run.Reservation.USD)
		r.measured.realRun(run.Reservation.Phase, run.Reservation.Env)
		r.charged.settle(r.envs[run.Reservation.Env], run.Reservation, run.Result)
	}
	restoreUpdates(j, r.budget, &r.charged)
	for _, ro := range v.Roles {
		r.roles[ro.Name] = ro
	}
	for _, w := range v.Rewards {
		r.rewards[w.Name] = w
	}
	for _, c := range v.Critics {
		r.critics[c.Name] = c
	}
	for _, l := range v.Loops {
		r.loops[l.Name] = l
	}
	for _, p := range v.Plugins {
		r.config[p.Name] = p.Config
	}
	r.progress = newProgress(opts.Progress, r)
	r.plugins = &pluginSet{ctx: ctx, plan: v.Plugins, loader: opts.Plugins, retries: opts.Retries, progress: r.progress, all: map[string]*supervised{}}
	return r
}

func (r *service) totals() Totals {
	s := r.budget.Spent()
	t := Totals{RealRuns: s.RealRuns, Finished: r.n.finished, Infeasible: r.n.infeasible,
		GPUHours: round6(s.GPUHours), USD: round6(s.USD), LLMUSD: round6(s.LLMUSD),
		LLMCalls: r.n.calls(), Steps: r.n.steps, Candidates: r.n.candidates,
		PolicyUpdates: r.n.updates, Records: r.records.count(), BestGain: round6(r.n.best()),
		Measured: r.measured.snapshot()}
	c := r.charged.totals()
	t.MeasuredGPUHours, t.MeasuredRunUSD, t.Overruns, t.OverrunGPUHours = round6(c.gpuHours), round6(c.usd), c.overruns, round6(c.overGPUHours)
	t.MeasuredUpdateGPUHours, t.UpdateOverruns = round6(c.updateGPUHours), c.updateOverruns
	return t
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
