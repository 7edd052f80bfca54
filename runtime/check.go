package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// CheckOptions configure Check.
type CheckOptions struct {
	// Variant picks a variant by name; empty checks the first.
	Variant string
	// Plugins starts plugins, as a run's loader does.
	Plugins Loader
	// Dir is an empty scratch directory for the check's journal,
	// worktrees and work directories; the caller removes it.
	Dir string
	// Progress receives progress lines; nil: silent.
	Progress io.Writer
	// Count counts a prompt as the plugin that serves its role does;
	// nil: prompts are not counted.
	Count PromptCounter
}

// PromptCounter counts the tokens of a rendered prompt as LLM plugin pl
// counts it against a role's tokens.in high. exact says the plugin refuses
// a prompt over the limit by this count (otherwise the count is an
// estimate); ok false says the plugin is sent no prompt (it reads the
// call's input itself), so there is nothing to count.
type PromptCounter func(pl *plan.Plugin, msgs []payload.Message) (n int, exact, ok bool)

// CheckSpend is what a check spends at most (Check.Spend, said before
// anything is spent) or spent: builds of seed programs, real runs (one
// evaluation of each task's baseline) with the GPU-hours they hold, LLM
// calls (one per role, and one per critic whose criteria_role writes its
// criteria), and the dollars of both.
type CheckSpend struct {
	Builds   int     `json:"builds"`
	RealRuns int     `json:"real_runs"`
	GPUHours float64 `json:"gpu_hours"`
	Calls    int     `json:"llm_calls"`
	USD      float64 `json:"usd"`
}

// CheckFinding is what a check found wrong: about a role, a task or both,
// what, and what to change. A warning does not fail the check.
type CheckFinding struct {
	Role    string `json:"role,omitempty"`
	Task    string `json:"task,omitempty"`
	Problem string `json:"problem"`
	Fix     string `json:"fix,omitempty"`
	Warning bool   `json:"warning,omitempty"`
}

// CheckBaseline is a task's baseline metric as the check's run read it.
type CheckBaseline struct {
	Task   string  `json:"task"`
	Metric float64 `json:"metric"`
}

// PromptSize is the size of a role's prompt on a task: its first call's,
// or (Later) one with the history and inspirations a later round shows,
// of the size of the check's own answers; Limit is the role's tokens.in
// high. Exact says the role's plugin counts it so.
type PromptSize struct {
	Role   string `json:"role"`
	Task   string `json:"task"`
	Tokens int    `json:"tokens"`
	Limit  int    `json:"limit"`
	Later  bool   `json:"later,omitempty"`
	Exact  bool   `json:"exact"`
}

// CheckResult is what a check did and found.
type CheckResult struct {
	Spend     CheckSpend      `json:"at_most"`
	Spent     CheckSpend      `json:"spent"`
	Baselines []CheckBaseline `json:"baselines,omitempty"`
	Prompts   []PromptSize    `json:"prompts,omitempty"`
	// Answered are the roles whose one call was answered and read.
	Answered []string       `json:"answered,omitempty"`
	Findings []CheckFinding `json:"findings,omitempty"`
}

// Failed reports whether the check found a problem that is not a warning.
func (c *CheckResult) Failed() bool {
	for _, f := range c.Findings {
		if !f.Warning {
			return true
		}
	}
	return false
}

// CheckSpendOf is what Check spends at most on the plan's variant.
func CheckSpendOf(p *plan.Plan, variant string) (CheckSpend, error) {
	v, err := p.Variant(variant)
	if err != nil {
		return CheckSpend{}, err
	}
	var s CheckSpend
	seeds := map[string]bool{}
	envs := map[string]*plan.Environment{}
	for _, e := range v.Envs {
		envs[e.Name] = e
		for _, t := range e.Tasks {
			s.RealRuns++
			s.GPUHours += e.GPUHours.High
			s.USD += e.GPUHours.High * v.Prices[e.GPU]
			if src := t.Source; src != nil && len(src.Build) > 0 && !seeds[seedID(src)] {
				seeds[seedID(src)] = true
				s.Builds++
			}
		}
	}
	roles := map[string]*plan.Role{}
	for _, ro := range v.Roles {
		roles[ro.Name] = ro
	}
	for _, ro := range v.Roles {
		s.Calls++
		s.USD += callHold(checkRole(ro))
		if ro.Kind == plugins.RoleCritic && ro.Prompt != nil && roles[ro.Prompt.CriteriaRole] != nil {
			s.Calls++ // its criteria_role writes its criteria first
			s.USD += callHold(checkRole(roles[ro.Prompt.CriteriaRole]))
		}
	}
	s.GPUHours, s.USD = round6(s.GPUHours), round6(s.USD)
	return s, nil
}

// seedID names a seed program and its build (command and environment):
// tasks that share one are built once.
func seedID(src *plan.Source) string {
	parts := []string{src.Repository, src.Revision, fmt.Sprint(len(src.Build), len(src.BuildInherits), len(src.BuildEnv))}
	parts = append(append(append(parts, src.Build...), src.BuildInherits...), src.BuildEnv...)
	return digest(parts...)
}

// checkRole is role as a check calls it: asked once, never again.
func checkRole(ro *plan.Role) *plan.Role {
	c := *ro
	if ro.Answer != nil {
		a := *ro.Answer
		a.Reasks = 0
		c.Answer = &a
	}
	return &c
}

// Check is a canary of the plan's variant before any budget is spent on
// it, through the code a run uses: it starts the plugins (preflight),
// resolves each task's seed program and knobs, builds each seed program
// once (its source's build command in a worktree of the seed commit),
// runs each task's baseline once through its trainer plugin (so the
// metric is read as a run reads it), sends one call per role to its
// plugin and reads the answer as a run would (a builder's patch is
// applied to the seed program), and counts every role's prompt, on every
// task and as a later round grows it, against its tokens.in high. It
// spends at most CheckSpendOf. A problem it finds is a finding naming the
// role, the task and what to change; the error is for a check that could
// not be made.
func Check(ctx context.Context, p *plan.Plan, opts CheckOptions) (*CheckResult, error) {
	if err := runnable(p); err != nil {
		return nil, err
	}
	v, err := p.Variant(opts.Variant)
	if err != nil {
		return nil, err
	}
	spend, err := CheckSpendOf(p, opts.Variant)
	if err != nil {
		return nil, err
	}
	j, err := journal.OpenWith(filepath.Join(opts.Dir, JournalFile), journal.Options{NoSync: true})
	if err != nil {
		return nil, err
	}
	defer j.Close()
	// Retries 0: each real run and call goes out once, as the spend says.
	r := newService(ctx, v, j, opts.Dir, Options{ID: "check", Dir: opts.Dir, Plugins: opts.Plugins, Progress: opts.Progress})
	defer r.plugins.close()
	// The check's own bounds are its budget; the plan's caps are the run's.
	r.budget = NewBudget(plan.Budget{})
	for name, ro := range r.roles {
		r.roles[name] = checkRole(ro)
	}
	c := &checker{s: r, count: opts.Count, res: &CheckResult{Spend: spend}}
	err = c.run()
	c.res.Spent.Calls = r.n.calls()
	c.res.Spent.USD = round6(r.budget.Spent().USD)
	c.res.Spent.GPUHours = round6(r.budget.Spent().GPUHours)
	return c.res, err
}

// checker is one check: the service it runs through and what it found.
type checker struct {
	s     *service
	count PromptCounter
	res   *CheckResult
	// canary is the proposal the check's proposer made, built by its
	// builder: what later roles are asked about, and a later round's
	// prompt is grown with.
	canary *plugins.Proposal
}

func (c *checker) find(f CheckFinding) { c.res.Findings = append(c.res.Findings, f) }

// run makes the check's steps, the cheapest first: the calls, then the
// builds, then the real runs, which are made only when nothing before
// them failed. A step that cannot go on without what an earlier one found
// wrong (plugins that do not start, tasks that do not resolve) ends it.
func (c *checker) run() error {
	r := c.s
	if err := r.preflight(); err != nil {
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		c.find(CheckFinding{Problem: err.Error()})
		return nil
	}
	if err := r.resolveTasks(); err != nil {
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		c.find(CheckFinding{Problem: err.Error()})
		return nil
	}
	if err := c.callRoles(); err != nil {
		return err
	}
	if err := c.buildSeeds(); err != nil {
		return err
	}
	if c.res.Failed() {
		c.find(CheckFinding{Warning: true, Problem: "the baselines were not evaluated: a real run would be spent on a spec that does not work yet", Fix: "change what the problems above say, and check again"})
		return nil
	}
	return c.runBaselines()
}

// buildSeeds builds each seed program once with its source's build
// command, in a worktree of the seed commit, as a candidate is built.
func (c *checker) buildSeeds() error {
	r := c.s
	built := map[string]bool{}
	for _, t := range r.tasks {
		sp := t.src
		if sp == nil || len(sp.src.Build) == 0 || built[seedID(sp.src)] {
			continue
		}
		built[seedID(sp.src)] = true
		c.res.Spent.Builds++
		r.progress.logf("check: building the seed program of task %s/%s (%s)", t.Env, t.Name, strings.Join(sp.src.Build, " "))
		err := c.inSeedWorktree(sp, "build/"+t.Env+"/"+t.Name, func(wt string) error {
			_, err := gitrepo.Build(r.ctx, wt, sp.src.Build, buildEnviron(sp.src, os.Environ()), buildTimeLimit)
			return err
		})
		var be *gitrepo.BuildError
		switch {
		case errors.As(err, &be):
			c.find(CheckFinding{Task: t.Env + "/" + t.Name, Problem: "the seed program does not build: " + clipReason(be.Msg),
				Fix: fmt.Sprintf("%scorrect environment %s's source build command, or the program at %s", sourcePrefix(sp.src.At), t.Env, sp.src.Revision)})
		case err != nil:
			return err
		}
	}
	return nil
}

// inSeedWorktree runs fn in a fresh worktree of sp's seed commit, made
// and removed as a candidate's is.
func (c *checker) inSeedWorktree(sp *seedProgram, key string, fn func(wt string) error) error {
	wt, remove, err := sourceMode{c.s}.worktree(sp, "check/"+key, sp.base)
	if err != nil {
		return err
	}
	defer remove()
	return fn(wt)
}

// runBaselines runs each task's baseline once, through its trainer, as a
// run's baselines phase does, and reads its metric.
func (c *checker) runBaselines() error {
	r := c.s
	runs := make([]realRun, len(r.tasks))
	for i, t := range r.tasks {
		runs[i] = realRun{Key: "check/baseline/" + t.Env + "/" + t.Name, Task: t, baseline: true,
			Proposal: plugins.Proposal{ID: "baseline", Text: "the unchanged reference configuration"}}
	}
	r.progress.logf("check: evaluating the baseline of %d task(s) once each", len(runs))
	out, err := r.runReal(scope{phase: "check"}, runs)
	if err != nil {
		return err
	}
	c.res.Spent.RealRuns = len(runs)
	for i, o := range out {
		t := runs[i].Task
		trainer := r.envs[t.Env].Trainer
		if why := baselineFailure(o); why != "" {
			c.find(CheckFinding{Task: t.Env + "/" + t.Name, Problem: "evaluating its seed program: " + clipReason(why),
				Fix: fmt.Sprintf("%scorrect the evaluation (plugin %s's command, metric_regex or metric_file), or the program", sourcePrefix(r.envs[t.Env].Source), trainer)})
			continue
		}
		c.res.Baselines = append(c.res.Baselines, CheckBaseline{Task: t.Env + "/" + t.Name, Metric: o.Metric})
	}
	return nil
}
