package runtime

import (
	"errors"
	"fmt"
	"slices"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// callRoles sends one call per role about the first task, in the order a
// run asks them: proposers first (their proposal is what the others are
// asked about), then builders, then the rest. A criteria_role that a
// critic's call asked already is not asked again. Then it counts every
// role's prompts.
func (c *checker) callRoles() error {
	r := c.s
	if len(r.tasks) == 0 {
		return nil
	}
	t := r.tasks[0]
	for _, ro := range callOrder(r.v.Roles) {
		if c.called(ro.Name) {
			continue
		}
		if err := c.callRole(r.roles[ro.Name], t); err != nil {
			return err
		}
	}
	return c.countPrompts()
}

// callOrder is the roles, proposers first, then builders, then the rest,
// each group in the plan's order.
func callOrder(roles []*plan.Role) []*plan.Role {
	rank := func(ro *plan.Role) int {
		switch ro.Kind {
		case plugins.RolePropose:
			return 0
		case plugins.RoleBuild, plugins.RoleImplement:
			return 1
		}
		return 2
	}
	out := slices.Clone(roles)
	slices.SortStableFunc(out, func(a, b *plan.Role) int { return rank(a) - rank(b) })
	return out
}

// called reports whether the check has called role already.
func (c *checker) called(role string) bool {
	w := c.s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	rw := w.roles[role]
	return rw != nil && rw.calls > 0
}

// callRole sends role's one call about task t through the run's own call
// path (its hold, its journal, its answer decoding) and reads the answer.
func (c *checker) callRole(ro *plan.Role, t *taskInfo) error {
	r := c.s
	in, err := c.input(ro, t, false)
	if err != nil {
		return err
	}
	out := responseOf(ro.Kind)
	if out == nil {
		return nil // a role kind no call of a run is made with
	}
	r.progress.logf("check: one call of role %s", ro.Name)
	_, err = r.completeText(ro.Name, "check/"+ro.Name, in, out, false)
	task := t.Env + "/" + t.Name
	switch {
	case errors.Is(err, errUnparsed):
		c.find(CheckFinding{Role: ro.Name, Task: task, Problem: "its answer cannot be read as a run reads it: " + clipReason(callWhy(err)),
			Fix: fmt.Sprintf("%smake its model answer as the role's prompt asks (assay prompt SPEC %s shows it): change the model, the prompt, or the role's answer block", sourcePrefix(ro.Source), ro.Name)})
		return nil
	case errors.Is(err, errCallFailed), err != nil && isPermanent(err):
		c.find(CheckFinding{Role: ro.Name, Task: task, Problem: "its call failed: " + clipReason(callWhy(err)),
			Fix: fmt.Sprintf("%scorrect the role (model, tokens) or its plugin %s's config, or start its server", sourcePrefix(ro.Source), ro.Plugin)})
		return nil
	case err != nil:
		return err
	}
	c.res.Answered = append(c.res.Answered, ro.Name)
	return c.read(ro, t, out)
}

// responseOf is what a role of kind answers, to decode into.
func responseOf(kind string) any {
	switch kind {
	case plugins.RolePropose:
		return &payload.ProposeResponse{}
	case plugins.RoleBuild, plugins.RoleImplement:
		return &payload.ImplementResponse{}
	case plugins.RolePredict:
		return &payload.PredictResponse{}
	case plugins.RoleCritic:
		return &payload.CritiqueResponse{}
	case plugins.RoleSummarize:
		return &payload.SummarizeResponse{}
	}
	return nil
}

// read takes from a decoded answer what a run takes: a proposer's first
// proposal (the check's canary), a builder's proposal or, in source mode,
// its patch, applied to the seed program as a candidate's is.
func (c *checker) read(ro *plan.Role, t *taskInfo, out any) error {
	task := t.Env + "/" + t.Name
	switch resp := out.(type) {
	case *payload.ProposeResponse:
		if len(resp.Proposals) == 0 {
			c.find(CheckFinding{Role: ro.Name, Task: task, Problem: "its answer holds no proposal",
				Fix: fmt.Sprintf("%smake its model answer with the proposals its prompt asks for", sourcePrefix(ro.Source))})
			return nil
		}
		if c.canary == nil {
			p := resp.Proposals[0]
			p.Commit = ""
			c.canary = &p
		}
	case *payload.ImplementResponse:
		if resp.Infeasible {
			c.find(CheckFinding{Role: ro.Name, Task: task, Warning: true, Problem: "it declared the check's idea infeasible: " + clipReason(resp.Reason)})
			return nil
		}
		if t.src == nil {
			if resp.Proposal.ID != "" && c.canary != nil {
				p := resp.Proposal
				c.canary = &p
			}
			return nil
		}
		return c.applies(ro, t, changeOf(*resp))
	}
	return nil
}

// applies makes a builder's change (its patch, whole files and edits) to
// the seed program in a worktree, as a candidate's build does before its
// build command (not run again here).
func (c *checker) applies(ro *plan.Role, t *taskInfo, ch sourceChange) error {
	r := c.s
	task := t.Env + "/" + t.Name
	fix := fmt.Sprintf("%smake its model answer with a change of the editable files %v as its prompt asks (assay prompt SPEC %s shows it)", sourcePrefix(ro.Source), t.src.src.Editable, ro.Name)
	if ch.empty() {
		c.find(CheckFinding{Role: ro.Name, Task: task, Problem: "its answer holds no change", Fix: fix})
		return nil
	}
	sc, err := t.src.context(r.ctx, t.src.base)
	if err != nil {
		return err
	}
	err = wholeFilesShown(ch, sc)
	if err == nil {
		err = c.inSeedWorktree(t.src, "apply/"+ro.Name, func(wt string) error {
			return makeChange(r.ctx, wt, ch, t.src.src.Editable, sc)
		})
	}
	var pe *gitrepo.PatchError
	switch {
	case errors.As(err, &pe) && t.src.src.Repairs > 0:
		// A run sends it back with the error: a warning, since the
		// repair is not tried here.
		c.find(CheckFinding{Role: ro.Name, Task: task, Warning: true, Fix: fix,
			Problem: fmt.Sprintf("its change does not apply to the seed program (a run sends it back with the error, up to %d time(s)): %s", t.src.src.Repairs, clipReason(pe.Msg))})
	case errors.As(err, &pe):
		c.find(CheckFinding{Role: ro.Name, Task: task, Problem: "its change does not apply to the seed program: " + clipReason(pe.Msg), Fix: fix})
	case err != nil:
		return err
	case c.canary != nil:
		c.canary.Patch = ch.Patch
	}
	return nil
}

// input is a role's call about task t as the check makes it: a first
// call's (firstInput) about the check's canary proposal once there is
// one; with later, a proposer's as a later round can show it: the canary
// as the parent, and a full history (where phases of the plan add
// records) and the loop's inspirations of records like it.
func (c *checker) input(ro *plan.Role, t *taskInfo, later bool) (any, error) {
	r := c.s
	pt := planTask(r.envs[t.Env], t.Name)
	if pt == nil {
		return nil, fmt.Errorf("check: task %s/%s is not in the plan", t.Env, t.Name)
	}
	knobs := r.knobs[t.Env]
	var src *payload.SourceContext
	if t.src != nil && (ro.Kind == plugins.RolePropose || ro.Kind == plugins.RoleBuild || ro.Kind == plugins.RoleImplement) {
		var err error
		if src, err = t.src.context(r.ctx, t.src.base); err != nil {
			return nil, err
		}
	}
	example := exampleProposal(knobs)
	if c.canary != nil {
		example = *c.canary
	}
	in, err := firstInput(r.v, ro, t.Env, pt, knobs, src, example)
	req, ok := in.(payload.ProposeRequest)
	if err != nil || !later || !ok {
		return in, err
	}
	parent := example
	req.Parent = &parent
	rec := record{Task: t.Name, Env: t.Env, Proposal: parent, Gain: 0}
	for range historyOf(r.v) {
		req.History = append(req.History, rec)
	}
	for range inspirationsOf(r.v, ro.Name) {
		req.Inspirations = append(req.Inspirations, rec)
	}
	return req, nil
}

// historyOf is the most history records a proposer's state shows: a full
// history where a phase adds real records to the pool (seed records, an
// RL loop), none otherwise.
func historyOf(v *plan.Variant) int {
	for _, ph := range v.Phases {
		if ph.Kind == plan.PhaseSeedRecords || ph.Kind == plan.PhaseRL {
			return historyLen
		}
	}
	return 0
}

// planTask is the plan's task of env named name.
func planTask(e *plan.Environment, name string) *plan.Task {
	if e == nil {
		return nil
	}
	for _, t := range e.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// inspirationsOf is the most inspirations an evolution loop shows role,
// its proposer.
func inspirationsOf(v *plan.Variant, role string) int {
	n := 0
	for _, l := range v.Loops {
		if l.Proposer == role && l.Kind == "evolution" {
			n = max(n, l.TopPrograms+l.DiversePrograms)
		}
	}
	return n
}

// countPrompts counts every role's prompt on every task, a first call's
// and a proposer's on a later round, against the role's tokens.in high.
func (c *checker) countPrompts() error {
	r := c.s
	if c.count == nil {
		return nil
	}
	for _, ro := range r.v.Roles {
		pl := pluginOf(r.v, ro.Plugin)
		if pl == nil || responseOf(ro.Kind) == nil {
			continue
		}
		for _, t := range r.tasks {
			for _, later := range []bool{false, true} {
				if later && (ro.Kind != plugins.RolePropose || c.canary == nil) {
					continue
				}
				if err := c.countPrompt(ro, pl, t, later); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// countPrompt counts one prompt of role ro about task t.
func (c *checker) countPrompt(ro *plan.Role, pl *plan.Plugin, t *taskInfo, later bool) error {
	r := c.s
	in, err := c.input(ro, t, later)
	if err != nil {
		return err
	}
	body, err := payload.Encode(in)
	if err != nil {
		return err
	}
	criteria := (llmCall{r, ro, ""}).criteria(in)
	if pt := planTask(r.envs[t.Env], t.Name); criteria == "" && pt != nil {
		criteria = criteriaPlaceholder(ro, pt)
	}
	msgs, err := renderChat(ro, in, body, criteria)
	if err != nil {
		c.find(CheckFinding{Role: ro.Name, Task: t.Env + "/" + t.Name, Problem: "its prompt does not render: " + err.Error()})
		return nil
	}
	n, exact, ok := c.count(pl, msgs)
	if !ok {
		return nil
	}
	limit := tokenBound(ro.TokensIn.High)
	c.res.Prompts = append(c.res.Prompts, PromptSize{Role: ro.Name, Task: t.Env + "/" + t.Name, Tokens: n, Limit: limit, Later: later, Exact: exact})
	if n <= limit {
		return nil
	}
	what := "its first call's prompt counts"
	if later {
		what = fmt.Sprintf("a later round's prompt (the parent, %d history records and %d inspirations the size of this check's answers) can count", historyOf(r.v), inspirationsOf(r.v, ro.Name))
	}
	f := CheckFinding{Role: ro.Name, Task: t.Env + "/" + t.Name, Warning: !exact,
		Problem: fmt.Sprintf("%s %d tokens, over the role's tokens.in high of %d", what, n, limit),
		Fix:     fmt.Sprintf("%sraise role %s's tokens.in high to %d at least (or shorten what its prompt shows)", sourcePrefix(tokensInSource(r.v, ro)), ro.Name, n)}
	if !exact {
		f.Problem += fmt.Sprintf(" by the count of one token per byte (plugin %s counts its own way)", pl.Name)
	}
	c.find(f)
	return nil
}

// pluginOf is the variant's plugin named name.
func pluginOf(v *plan.Variant, name string) *plan.Plugin {
	for _, p := range v.Plugins {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// tokensInSource is where the spec sets role's tokens.in (its
// assumption's source), else the role block.
func tokensInSource(v *plan.Variant, ro *plan.Role) diag.Range {
	for _, a := range v.Assumptions {
		if a.Name == "role."+ro.Name+".tokens_in" && a.Source.Valid() {
			return a.Source
		}
	}
	return ro.Source
}
