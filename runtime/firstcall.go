package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// FirstCall renders the messages a role of the plan's variant would be
// sent on a representative first call about task (empty: the first task
// of the first environment): no history, no records, the baseline as the
// parent, and as the proposal to build, judge or summarise an example
// that sets the first knob to its first other value. The knobs are what
// the environment's trainer plugin describes (it is started through l for
// that); roles that show no knobs start nothing. `assay prompt` prints it.
func FirstCall(ctx context.Context, p *plan.Plan, variant, roleName, task string, l Loader) ([]payload.Message, error) {
	v, err := p.Variant(variant)
	if err != nil {
		return nil, err
	}
	var role *plan.Role
	var names []string
	for _, r := range v.Roles {
		names = append(names, r.Name)
		if r.Name == roleName {
			role = r
		}
	}
	if role == nil {
		sort.Strings(names)
		return nil, fmt.Errorf("the spec has no role %q (it has %v)", roleName, names)
	}
	env, t, err := firstTask(v, task)
	if err != nil {
		return nil, err
	}
	var knobs []plugins.Knob
	var src *payload.SourceContext
	switch role.Kind {
	case plugins.RolePropose, plugins.RoleBuild, plugins.RoleImplement, plugins.RolePredict, plugins.RoleCritic, plugins.RoleSummarize:
		if knobs, err = describeKnobs(ctx, v, env, l); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("role %q is of kind %q, which has no prompt", role.Name, role.Kind)
	}
	if t.Source != nil && (role.Kind == plugins.RolePropose || role.Kind == plugins.RoleBuild || role.Kind == plugins.RoleImplement) {
		// Source mode: the proposer and the builder see the seed
		// program's editable files, as a run's first call does.
		if src, err = firstSource(ctx, t.Source); err != nil {
			return nil, err
		}
	}
	in, err := firstInput(v, role, env.Name, t, knobs, src, exampleProposal(knobs))
	if err != nil {
		return nil, err
	}
	body, err := payload.Encode(in)
	if err != nil {
		return nil, err
	}
	criteria := t.Criteria
	if ph := criteriaPlaceholder(role, t); ph != "" {
		criteria = ph
	}
	return renderChat(role, in, body, criteria)
}

// firstInput is the input of a role's first call about task t of
// environment env: no history, no records, the baseline as the parent,
// and example as the proposal to build, judge or summarise; src is the
// seed program a proposer or builder is shown in source mode (nil in knob
// mode).
func firstInput(v *plan.Variant, role *plan.Role, env string, t *plan.Task, knobs []plugins.Knob, src *payload.SourceContext, example plugins.Proposal) (any, error) {
	parent := plugins.Proposal{ID: "baseline", Text: "the task's baseline configuration"}
	var in any
	switch role.Kind {
	case plugins.RolePropose:
		in = payload.ProposeRequest{Task: t.Name, Env: env, State: t.Name, Knobs: knobs, N: 1, Source: src}
	case plugins.RolePredict:
		in = payload.PredictRequest{Task: t.Name, Env: env, Proposal: example}
	case plugins.RoleCritic:
		labels := payload.Labels3
		for _, c := range v.Critics {
			if c.Role == role.Name {
				labels = c.Labels
				break
			}
		}
		in = payload.CritiqueRequest{Task: t.Name, Env: env, Parent: parent, Child: example, Labels: labels}
	case plugins.RoleSummarize:
		in = payload.SummarizeRequest{Task: t.Name, Proposal: example}
		if criteriaRoleOf(v, role.Name) {
			// A critic's criteria_role is asked about the task itself.
			in = criteriaRequest(env, t.Name, t.Description, t.Domain)
		}
	case plugins.RoleBuild, plugins.RoleImplement:
		in = payload.ImplementRequest{Task: t.Name, Env: env, Proposal: example, Knobs: knobs, Source: src}
	default:
		return nil, fmt.Errorf("role %q is of kind %q, which has no prompt", role.Name, role.Kind)
	}
	return in, nil
}

func firstTask(v *plan.Variant, name string) (*plan.Environment, *plan.Task, error) {
	var all []string
	for _, e := range v.Envs {
		for _, t := range e.Tasks {
			if name == "" || t.Name == name {
				return e, t, nil
			}
			all = append(all, t.Name)
		}
	}
	if name == "" {
		return nil, nil, errors.New("the spec has no task")
	}
	return nil, nil, fmt.Errorf("the spec has no task %q (it has %v)", name, all)
}

// describeKnobs asks the environment's trainer for its knobs, as a run
// does before its first call.
func describeKnobs(ctx context.Context, v *plan.Variant, e *plan.Environment, l Loader) ([]plugins.Knob, error) {
	var pl *plan.Plugin
	for _, p := range v.Plugins {
		if p.Name == e.Trainer {
			pl = p
		}
	}
	if pl == nil || l == nil {
		return nil, fmt.Errorf("environment %s: no trainer plugin %q to describe its knobs", e.Name, e.Trainer)
	}
	inst, err := l.Open(ctx, pl)
	if err != nil {
		return nil, fmt.Errorf("starting plugin %s: %w", pl.Name, err)
	}
	defer inst.Close()
	tr := inst.Trainer()
	if tr == nil {
		return nil, fmt.Errorf("plugin %s is not a trainer", pl.Name)
	}
	// The trainer describes itself with the config a run gets: a suite
	// task's evaluation command fills a command trainer's command.
	cfg := pl.Config
	for _, t := range e.Tasks {
		if len(t.Command) > 0 {
			cfg = withTaskCommand(cfg, t.Command, "")
			break
		}
	}
	resp, err := tr.Describe(ctx, &plugins.DescribeRequest{Config: cfg})
	if errors.Is(err, plugins.ErrUnsupported) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugin %s: describe: %w", pl.Name, err)
	}
	return resp.Knobs, nil
}

// exampleProposal sets the first knob to its first value other than its
// default.
func exampleProposal(knobs []plugins.Knob) plugins.Proposal {
	for _, k := range knobs {
		for _, val := range k.Values {
			if val != k.Default {
				return plugins.Proposal{ID: "example", Text: fmt.Sprintf("set %s to %s", k.Name, val), Mechanism: k.Mechanism, Edits: map[string]string{k.Name: val}}
			}
		}
	}
	return plugins.Proposal{ID: "example", Text: "an example change"}
}

// firstSource is the seed program a task's first build changes: its
// resolved revision, editable paths and files, bounded as a run bounds them.
func firstSource(ctx context.Context, src *plan.Source) (*payload.SourceContext, error) {
	var (
		repo   *gitrepo.Repo
		commit string
		err    error
	)
	if src.Import != nil {
		// Imported where nothing is kept: the same files are the same
		// commit a run's import makes.
		tmp, terr := os.MkdirTemp("", "assay-import-")
		if terr != nil {
			return nil, terr
		}
		defer os.RemoveAll(tmp)
		repo, commit, err = gitrepo.Import(ctx, importSource(src), tmp)
	} else if repo, err = gitrepo.Open(ctx, src.Repository); err == nil {
		commit, err = repo.Resolve(ctx, src.Revision)
	}
	if err != nil {
		return nil, err
	}
	files, err := repo.Files(ctx, commit, src.Editable, sourceFileBytes, sourceTotalBytes, sourceMaxFiles)
	if err != nil {
		return nil, err
	}
	sc := &payload.SourceContext{Commit: commit, Editable: src.Editable}
	for _, f := range files {
		sc.Files = append(sc.Files, payload.SourceFile{Path: f.Path, Content: f.Content, Truncated: f.Truncated})
	}
	return sc, nil
}
