package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// historyLen is how many records of its task a proposer state carries.
const historyLen = 8

// execute runs the variant's phases in order, each by the node of its
// kind over its body. An RL phase runs its calibration rounds between its
// steps.
func (r *service) execute() error {
	if err := r.preflight(); err != nil {
		return err
	}
	if err := r.resolveTasks(); err != nil {
		return err
	}
	for i, ph := range r.v.Phases {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		sc := scopeFor(r.v, r.loops, i, ph)
		r.budget.SetHoldBack(sc.hold)
		if err := r.j.Append(journal.KindPhaseStart, ph.Name, ph); err != nil {
			return err
		}
		r.watch = newPhaseWatch()
		node, err := phaseOf(r, sc, i, ph)
		if err == nil {
			err = node.Execute()
		}
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				return phaseError(ph, err)
			}
			r.progress.logf("phase %s stopped: %v", ph.Name, err)
			r.cuts.cut(ph.Name, "stopped: "+strings.TrimPrefix(err.Error(), ErrBudget.Error()+": "))
		}
		if err := (sourceMode{r}).markBest(); err != nil {
			return err
		}
		if err := journalTasks(r); err != nil {
			return err
		}
		if err := r.j.Commit(journal.KindPhaseEnd, ph.Name, r.totals()); err != nil {
			return err
		}
		if fs := r.watch.verdict(ph, r.cuts.has); len(fs) > 0 {
			// What comes after would build on nothing: the run ends here.
			r.failures = fs
			r.progress.logf("phase %s measured nothing: the run ends here", ph.Name)
			return nil
		}
	}
	return nil
}

// phaseError is a phase's error, positioned at the spec block the phase
// came from when the plan records it, so the user sees what to change.
func phaseError(ph *plan.Phase, err error) error {
	if ph.Source.Valid() {
		return fmt.Errorf("%s: phase %s: %w", ph.Source, ph.Name, err)
	}
	return fmt.Errorf("phase %s: %w", ph.Name, err)
}

// preflight reads the critic_eval phases' pairs files (preflightCriticEvals)
// and starts every plugin the plan uses before anything is reserved:
// a plugin that cannot start (a checksum or lock mismatch, a missing
// binary) stops the run here, with nothing spent. A plugin that can check
// what it talks to (Prober: the openai plugin's endpoint) is asked to,
// once, and an unreachable endpoint stops the run here too.
func (r *service) preflight() error {
	if err := preflightCriticEvals(r.v); err != nil {
		return err
	}
	for _, p := range r.v.Plugins {
		err := r.plugins.call(p.Name, func(inst Instance) error {
			pr, ok := inst.(Prober)
			if !ok {
				return nil
			}
			if err := pr.Probe(r.ctx, r.config[p.Name]); err != nil && r.ctx.Err() == nil {
				// Permanent: no retry, no restart, the run stops.
				return plugins.WithKind(errPermanent, fmt.Errorf("preflight: plugin %s: %w", p.Name, err))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sumRuns is the most real runs a phase's counts allow.
func sumRuns(m map[string]plan.Count) float64 {
	var n float64
	for _, c := range m {
		n += c.High
	}
	return n
}

// resolveTasks fills each task's baseline and scale from the plan, or from
// the environment's benchmark plugin, and the knobs from its trainer.
func (r *service) resolveTasks() error {
	locks := map[string]*sync.Mutex{}
	for _, e := range r.v.Envs {
		var bench map[string]plugins.TaskInfo
		for _, t := range e.Tasks {
			ti := &taskInfo{Env: e.Name, Name: t.Name, Split: t.Split, Scale: 1, Minimize: t.Direction == plan.Minimize, Command: t.Command, Criteria: t.Criteria, Description: t.Description, Domain: t.Domain}
			// Knob mode runs the command in the scaffold; source mode
			// (no Scaffold) at the top of the candidate's checkout.
			if t.Scaffold != nil && len(t.Command) > 0 {
				dir, err := filepath.Abs(t.Scaffold.Repository)
				if err != nil {
					return fmt.Errorf("task %s: scaffold %s: %w", t.Name, t.Scaffold.Repository, err)
				}
				ti.Dir = dir
			}
			if t.Source != nil {
				var err error
				if ti.src, err = (sourceMode{r}).resolveSource(e.Name, t, locks); err != nil {
					return err
				}
			}
			if t.Scale != nil && *t.Scale > 0 {
				ti.Scale = *t.Scale
			}
			if t.Baseline != nil {
				ti.Baseline = *t.Baseline
			} else if e.Benchmark != "" {
				if bench == nil {
					var err error
					if bench, err = r.benchmarkTasks(e); err != nil {
						return err
					}
				}
				b, ok := bench[t.Name]
				if !ok {
					return fmt.Errorf("%senvironment %s: benchmark %s has no task %q", sourcePrefix(e.Source), e.Name, e.Benchmark, t.Name)
				}
				ti.Baseline = b.Baseline
				if t.Scale == nil && b.Scale > 0 {
					ti.Scale = b.Scale
				}
			} else {
				ti.Baseline = math.NaN() // measured by the plan's baselines phase
			}
			r.tasks = append(r.tasks, ti)
		}
		if err := r.describe(e); err != nil {
			return err
		}
	}
	return nil
}

func (r *service) benchmarkTasks(e *plan.Environment) (map[string]plugins.TaskInfo, error) {
	key := "tasks/" + e.Name
	var resp plugins.TasksResponse
	if d, ok := r.j.Call(journal.KindCall, key); ok && json.Unmarshal(d, &resp) == nil {
	} else {
		cfg := r.config[e.Benchmark]
		err := r.plugins.call(e.Benchmark, func(inst Instance) error {
			b := inst.Benchmark()
			if b == nil {
				return fmt.Errorf("%w: plugin %s is not a benchmark", errPermanent, e.Benchmark)
			}
			got, err := b.Tasks(r.ctx, &plugins.TasksRequest{Env: e.Name, Config: cfg})
			if err == nil {
				resp = *got
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := r.j.Append(journal.KindCall, key, resp); err != nil {
			return nil, err
		}
	}
	out := map[string]plugins.TaskInfo{}
	for _, t := range resp.Tasks {
		out[t.Name] = t
	}
	return out, nil
}

func (r *service) describe(e *plan.Environment) error {
	key := "describe/" + e.Name
	var resp plugins.DescribeResponse
	if d, ok := r.j.Call(journal.KindCall, key); ok && json.Unmarshal(d, &resp) == nil {
		r.knobs[e.Name] = resp.Knobs
		return nil
	}
	cfg := r.config[e.Trainer]
	for _, t := range e.Tasks {
		if len(t.Command) > 0 {
			// The trainer describes itself with the config a run gets.
			cfg = withTaskCommand(cfg, t.Command, "")
			break
		}
	}
	err := r.plugins.call(e.Trainer, func(inst Instance) error {
		t := inst.Trainer()
		if t == nil {
			return fmt.Errorf("%w: plugin %s is not a trainer", errPermanent, e.Trainer)
		}
		got, err := t.Describe(r.ctx, &plugins.DescribeRequest{Config: cfg})
		if err == nil {
			resp = *got
		}
		return err
	})
	if err != nil && !errors.Is(err, plugins.ErrUnsupported) {
		return err
	}
	r.knobs[e.Name] = resp.Knobs
	return r.j.Append(journal.KindCall, key, resp)
}

// Execute measures the baseline b_e of every task the plan's
// baselines phase lists, by one real run of the unedited reference
// configuration each, reserved against the budget and journaled like any
// real run (keys "baseline/ENV/TASK", so a resumed run finds them). A task
// whose baseline is already known (declared, or from a benchmark) is not run.
func (r *baselines) Execute() error {
	ph := r.ph
	var need []realRun
	for _, tr := range r.body.Tasks {
		t := r.s.tasks.find(tr.Env, tr.Task)
		if t == nil {
			return fmt.Errorf("the plan lists a baseline run for task %s/%s, which it does not define", tr.Env, tr.Task)
		}
		if !math.IsNaN(t.Baseline) {
			continue
		}
		need = append(need, realRun{Key: "baseline/" + t.Env + "/" + t.Name, Task: t,
			Proposal: plugins.Proposal{ID: "baseline", Text: "the unchanged reference configuration"}, baseline: true})
	}
	r.s.progress.start(ph.Name, len(need), "runs")
	if len(need) == 0 {
		return nil
	}
	out, err := r.s.runReal(r.sc, need)
	if err != nil {
		return err
	}
	for i, o := range out {
		if why := baselineFailure(o); why != "" {
			// Every later run of the task is measured against it.
			return fmt.Errorf("task %s/%s: %s; nothing of the task can be measured without it (or declare the task's baseline in the spec)", need[i].Task.Env, need[i].Task.Name, why)
		}
		need[i].Task.Baseline = o.Metric
		r.s.progress.step("")
	}
	return nil
}

// baselineFailure says why a baseline run measured no metric ("" when it
// did): its real cause, a cap, the trainer's reason or infrastructure.
func baselineFailure(o outcome) string {
	reason := func() string {
		if o.Result != nil && o.Result.Reason != "" {
			return ": " + o.Result.Reason
		}
		return ""
	}
	switch {
	case o.Skipped:
		return "the baseline run got no run: " + o.Why
	case o.Failed:
		return "the baseline run failed on the infrastructure after its retries" + reason()
	case o.Infeasible:
		return "the baseline run, the unchanged reference configuration, was infeasible" + reason()
	}
	return ""
}

// ensureBaselines checks that every task of runs has a baseline: every
// baseline run is in the plan's baselines phase, so the estimate and the
// budget check saw it, and the runtime never starts one the plan did not
// count.
func (r *service) ensureBaselines(runs []realRun) error {
	for _, rr := range runs {
		if !rr.baseline && rr.Task != nil && math.IsNaN(rr.Task.Baseline) {
			return fmt.Errorf("task %s/%s has no baseline, and the plan counts no baseline run for it: compile the spec again with this version of assay, or declare the task's baseline", rr.Task.Env, rr.Task.Name)
		}
	}
	return nil
}

// concurrency is how many calls of a role the runtime keeps in flight: the
// role's concurrency, which the compiler always sets.
func (r *service) concurrency(role string) int {
	if ro := r.roles[role]; ro != nil && ro.Concurrency > 0 {
		return ro.Concurrency
	}
	return 1
}

// propose asks the proposer role for one proposal. It also returns the
// request: a policy update names each sample's state by the request its
// proposal was sampled from, encoded only when an update needs it.
func (r *service) propose(proposer, key string, t *taskInfo, state string, parent *plugins.Proposal) (plugins.Proposal, *sampled, bool, error) {
	return r.proposeWith(proposer, key, t, state, parent, proposeOpts{})
}

// sampled is one proposer call as the policy made it: the request it was
// sent (its chat is payload.Chat of it), the answer's text exactly as the
// model returned it, and the policy that answered. A policy update trains on it, whatever a builder makes of the
// proposal afterwards.
type sampled struct {
	req    *payload.ProposeRequest
	text   string
	policy plugins.SamplePolicy
}

// proposeOpts are what a proposal request may add to the state: verified
// programs shown beside the parent (inspirations), real records in the
// prompt (in-context learning), and whether the proposer answers at its
// initial, untrained policy.
type proposeOpts struct {
	inspirations, records []record
	untrained             bool
}

// proposeWith is propose with o.
func (r *service) proposeWith(proposer, key string, t *taskInfo, state string, parent *plugins.Proposal, o proposeOpts) (plugins.Proposal, *sampled, bool, error) {
	// Format is set here, not only by withAnswer: a policy update's sample
	// state is this request exactly as it was sent.
	enc := &payload.ProposeRequest{Task: t.Name, Env: t.Env, State: state, Parent: parent, History: r.records.history(t), Records: o.records, Knobs: r.knobs[t.Env], N: 1,
		Inspirations: o.inspirations, Format: ideasFormat(r.roles[proposer])}
	if t.src != nil {
		// Source mode: the proposer is shown the program it changes, the
		// parent's commit or the seed program.
		commit := t.src.base
		if parent != nil && parent.Commit != "" {
			commit = parent.Commit
		}
		sc, err := t.src.context(r.ctx, commit)
		if err != nil {
			return plugins.Proposal{}, nil, false, err
		}
		enc.Source = sc
	}
	req := *enc
	untrained := o.untrained
	smp := &sampled{req: enc}
	if !untrained {
		smp.policy = r.policy.sample(proposer)
	}
	var resp payload.ProposeResponse
	text, err := r.completeText(proposer, key, req, &resp, untrained)
	if errors.Is(err, errCallFailed) {
		r.watch.noProposal(callWhy(err))
		return plugins.Proposal{}, smp, false, nil
	} else if err != nil {
		return plugins.Proposal{}, smp, false, err
	}
	smp.text = text
	if len(resp.Proposals) == 0 {
		r.watch.noProposal("the proposer's answer held no proposal")
		return plugins.Proposal{}, smp, false, nil
	}
	r.watch.proposal()
	// The runtime owns a proposal's commit: an answer's own is dropped,
	// and a proposal builds on its parent's program.
	out := resp.Proposals[0]
	out.Commit = ""
	if parent != nil && t.src != nil {
		out.Commit = parent.Commit
	}
	return out, smp, true, nil
}

// samplePolicyOf names the policy of a proposer's checkpoint st, made by
// policy step step: the adapter and directory a served proposer's plugin
// put in the state it returned (builtin:openai's {"adapter", "path"}).
func samplePolicyOf(st []byte, step int) plugins.SamplePolicy {
	var p struct {
		Adapter string `json:"adapter"`
		Path    string `json:"path"`
	}
	if len(st) > 0 {
		_ = json.Unmarshal(st, &p) // another plugin's checkpoint names no adapter
	}
	return plugins.SamplePolicy{Adapter: p.Adapter, Path: p.Path, Step: step}
}

// implement turns a proposal into a runnable one through the builder role
// the plan binds (none: the proposal runs as it is). loop, when set, is
// the loop whose build-failure rate the build counts towards and whose
// repairs a failed build gets: each repair is one more builder call, told
// why the last attempt failed, under its own key (KEY/repair/N).
func (r *service) implement(builder, loop, key string, t *taskInfo, p plugins.Proposal) (plugins.Proposal, bool, error) {
	if t.src != nil && builder != "" {
		return sourceMode{r}.implementSource(builder, loop, key, t, p)
	}
	if builder == "" {
		// The proposal runs as it is: its edits must be of their types.
		return p, t.src != nil || editsOutsideTypes(r.knobs[t.Env], p, r.measured, r.progress, "proposal "+strings.TrimSuffix(key, "/implement")) == "", nil
	}
	repairs := 0
	if l := r.loops[loop]; l != nil {
		repairs = l.Repairs
	}
	var resp payload.ImplementResponse
	var err error
	for n := 0; n <= repairs; n++ {
		req := payload.ImplementRequest{Task: t.Name, Env: t.Env, Proposal: p, Knobs: r.knobs[t.Env]}
		k := key
		if n > 0 {
			k = fmt.Sprintf("%s/repair/%d", key, n)
			req.Repair, req.Failure = n, resp.Reason
			if err != nil {
				req.Failure = "the build call failed"
			}
		}
		resp = payload.ImplementResponse{}
		err = r.complete(builder, k, req, &resp)
		if err != nil && !errors.Is(err, errCallFailed) {
			return p, false, err
		}
		if err == nil && !resp.Infeasible {
			// An edit outside its type fails the build: repaired, or
			// the candidate is infeasible.
			if why := editsOutsideTypes(r.knobs[t.Env], resp.Proposal, r.measured, r.progress, builder+" call "+k); why != "" {
				resp.Infeasible, resp.Reason = true, why
			}
		}
		if err == nil && !resp.Infeasible {
			break
		}
		if n < repairs {
			r.measured.loop(loop, func(m *MeasuredLoop) { m.Repairs++ })
		}
	}
	failed := err != nil || resp.Infeasible
	r.measured.build(builder, failed)
	if failed {
		why := resp.Reason
		if err != nil {
			why = "the build call failed: " + callWhy(err)
		}
		r.watch.build(false, why)
	} else {
		r.watch.build(true, "")
	}
	if loop != "" {
		r.measured.loop(loop, func(m *MeasuredLoop) {
			m.Built++
			if failed {
				m.BuildFailed++
			}
		})
	}
	if failed {
		return p, false, nil // a build that failed is an infeasible candidate
	}
	if resp.Proposal.ID == "" {
		resp.Proposal.ID = p.ID
	}
	if resp.Proposal.Mechanism == "" {
		resp.Proposal.Mechanism = p.Mechanism
	}
	return resp.Proposal, true, nil
}

// Execute runs the seed records: real runs on train tasks, spread over
// environments as the plan says, whose results form the world model's
// initial context.
func (r *seedRecords) Execute() error {
	ph, body := r.ph, r.body
	type item struct {
		key  string
		task *taskInfo
	}
	var items []item
	for _, e := range r.s.v.Envs {
		n := body.Proposals[e.Name]
		tasks := r.s.tasks.of(e.Name, "train") // seed records are train runs, by definition
		if len(tasks) == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			items = append(items, item{fmt.Sprintf("seed/%s/%d", e.Name, i), tasks[i%len(tasks)]})
		}
	}
	r.s.progress.start(ph.Name, len(items), "runs")
	runs := make([]realRun, len(items))
	feasible := make([]bool, len(items))
	err := parallel(len(items), r.s.concurrency(body.Proposer), func(i int) error {
		it := items[i]
		p, _, ok, err := r.s.propose(body.Proposer, it.key+"/propose", it.task, "seed", nil)
		if err != nil || !ok {
			return err
		}
		if body.Select == "baseline_neighbours" {
			p = neighbour(p, rng(r.s.v.Seed, it.key+"/neighbour"))
		}
		p, ok, err = r.s.implement(body.Builder, "", it.key+"/implement", it.task, p)
		runs[i] = realRun{Key: it.key, Task: it.task, Proposal: p, fix: fixerFor(body.Builder, "", it.key+"/implement", it.task)}
		feasible[i] = ok
		return err
	})
	if err != nil {
		return err
	}
	var todo []realRun
	var idx []int
	for i := range runs {
		if feasible[i] {
			todo = append(todo, runs[i])
			idx = append(idx, i)
		}
	}
	out, err := r.s.runReal(r.sc, todo)
	if err != nil {
		return err
	}
	byIdx := map[int]outcome{}
	for n, i := range idx {
		byIdx[i] = out[n]
	}
	for i, it := range items {
		o, ran := byIdx[i]
		if ran && (o.Skipped || o.Failed) {
			continue
		}
		rec := record{Task: it.task.Name, Env: it.task.Env, Proposal: o.program(runs[i].Proposal), Gain: o.Gain, Infeasible: !ran || o.Infeasible}
		r.s.records.add(true, rec)
		r.s.progress.step("")
	}
	return nil
}

// neighbour keeps one of a proposal's edits, picked at random: with
// records.select = "baseline_neighbours" every seed record differs from the
// task's reference configuration in a single knob, so the world model's
// first context maps the neighbourhood of the baseline one knob at a time.
// A proposal without edits (free text) is kept as it is.
func neighbour(p plugins.Proposal, g *rand.Rand) plugins.Proposal {
	if len(p.Edits) <= 1 {
		return p
	}
	keys := slices.Sorted(maps.Keys(p.Edits))
	k := keys[g.IntN(len(keys))]
	p.Edits = map[string]string{k: p.Edits[k]}
	p.ID += "/" + k
	return p
}
