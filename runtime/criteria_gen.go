package runtime

import (
	"errors"
	"fmt"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// criteriaKey prefixes the journal keys of a critic's criteria_role calls.
const criteriaKey = "criteria/"

// genCriteria are the task criteria a critic's criteria_role generated,
// asked once per critic and task: concurrent calls of a critic on one task
// wait for the one ask.
type genCriteria struct {
	mu sync.Mutex
	m  map[string]*genEntry
}

type genEntry struct {
	once sync.Once
	text string
	err  error
}

func (g *genCriteria) entry(key string) *genEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]*genEntry{}
	}
	e := g.m[key]
	if e == nil {
		e = &genEntry{}
		g.m[key] = e
	}
	return e
}

// lookup is the generated criteria of key, empty when none were.
func (g *genCriteria) lookup(key string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e := g.m[key]; e != nil {
		return e.text
	}
	return ""
}

// criteriaTask is the task of the plan a critic's request is about, when
// the role generates criteria for it: a task no criteria file covers (the
// manifest's and the role's criteria_dir win). Its key names the journaled
// call.
func criteriaTask(tasks taskList, role *plan.Role, in any) (*taskInfo, string) {
	if role.Kind != plugins.RoleCritic || role.Prompt == nil || role.Prompt.CriteriaRole == "" {
		return nil, ""
	}
	var env, task string
	switch q := in.(type) {
	case payload.CritiqueRequest:
		env, task = q.Env, q.Task
	case *payload.CritiqueRequest:
		env, task = q.Env, q.Task
	default:
		return nil, ""
	}
	t := tasks.find(env, task)
	if t == nil || t.Criteria != "" {
		return nil, ""
	}
	if _, ok := role.Prompt.TaskCriteria[t.Name]; ok {
		return nil, ""
	}
	return t, fmt.Sprintf("%s%s/%s/%s", criteriaKey, role.Name, t.Env, t.Name)
}

// generateCriteria asks a critic's criteria_role, once per task, for the
// understanding and criteria of the task of the critic's request in,
// before the critic is sent it. The call is journaled like any, so a
// resumed or replayed run reads the same text without asking again. A
// failed call leaves the task without generated criteria (the critic
// judges as without them); a stopped run's error is returned.
func (c llmCall) generateCriteria(in any) error {
	r := c.s
	t, key := criteriaTask(r.tasks, c.role, in)
	if t == nil {
		return nil
	}
	e := r.genCriteria.entry(key)
	e.once.Do(func() {
		var resp payload.SummarizeResponse
		req := criteriaRequest(t.Env, t.Name, t.Description, t.Domain)
		err := r.complete(c.role.Prompt.CriteriaRole, key, req, &resp)
		switch {
		case errors.Is(err, errCallFailed):
		case err != nil:
			e.err = err
		default:
			e.text = resp.Summary
		}
	})
	return e.err
}

// criteria are the criteria that take the place of a critic role's on
// the call of request in: the task's own (the manifest's), else those its
// criteria_role generated; empty, the role's criteria_dir file or its own
// criteria stand.
func (c llmCall) criteria(in any) string {
	r := c.s
	if tc := r.tasks.criteriaOf(in); tc != "" {
		return tc
	}
	if _, key := criteriaTask(r.tasks, c.role, in); key != "" {
		return r.genCriteria.lookup(key)
	}
	return ""
}

// criteriaRequest is what a criteria_role is asked about a task: the task
// itself as the proposal to describe (its ID "task"), with what the
// manifest says of it.
func criteriaRequest(env, task, description, domain string) payload.SummarizeRequest {
	return payload.SummarizeRequest{Task: task, Env: env, Description: description, Domain: domain,
		Proposal: plugins.Proposal{ID: "task", Text: fmt.Sprintf("the understanding of task %s and the criteria a change of it is judged by", task)}}
}

// criteriaPlaceholder is what `assay prompt` shows as a critic's .Criteria
// on a task whose criteria its criteria_role generates during the run;
// empty when the role has none or a file gives the task's.
func criteriaPlaceholder(role *plan.Role, t *plan.Task) string {
	p := role.Prompt
	if role.Kind != plugins.RoleCritic || p == nil || p.CriteriaRole == "" || t.Criteria != "" {
		return ""
	}
	if _, ok := p.TaskCriteria[t.Name]; ok {
		return ""
	}
	return fmt.Sprintf("(the criteria role %s generates for task %s when the run first judges it)", p.CriteriaRole, t.Name)
}

// criteriaRoleOf says whether role is some critic's criteria_role in v
// and no loop's summarizer: its first call is then about a task.
func criteriaRoleOf(v *plan.Variant, role string) bool {
	for _, l := range v.Loops {
		if l.Summarizer == role {
			return false
		}
	}
	for _, r := range v.Roles {
		if r.Prompt != nil && r.Prompt.CriteriaRole == role {
			return true
		}
	}
	return false
}
