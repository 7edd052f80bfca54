package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
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

// generateCriteria gives a critic, once per task, the understanding and
// criteria of the task of its request in, before the critic is sent it:
// the journal's first (a resumed run reads what it had, a replay what the
// replayed run had), else the runs directory's store (reused without a
// call), else the critic's criteria_role asked, its answer stored for
// later runs. Either way the text is journaled (KindCriteria) with where
// it came from. A failed call leaves the task without generated criteria
// (the critic judges as without them); a stopped run's error is returned.
func (c llmCall) generateCriteria(in any) error {
	r := c.s
	t, key := criteriaTask(r.tasks, c.role, in)
	if t == nil {
		return nil
	}
	e := r.genCriteria.entry(key)
	e.once.Do(func() {
		req := criteriaRequest(t.Env, t.Name, t.Description, t.Domain)
		rec := criteriaRecord{Critic: c.role.Name, Env: t.Env, Task: t.Name, Role: c.role.Prompt.CriteriaRole}
		e.text, e.err = c.criteriaOf(key, req, &rec)
	})
	return e.err
}

// criteriaRecord is a task's journaled criteria (journal.KindCriteria).
type criteriaRecord struct {
	Critic string `json:"critic"`
	Env    string `json:"env"`
	Task   string `json:"task"`
	Role   string `json:"role"`
	Text   string `json:"text"`
	// From is criteriaGenerated or criteriaReused; Digest names the
	// store's entry.
	From   string `json:"from"`
	Digest string `json:"digest,omitempty"`
}

const (
	criteriaGenerated = "generated"
	criteriaReused    = "reused"
)

// criteriaOf is the text of the task's criteria under key (see
// generateCriteria), journaled in rec.
func (c llmCall) criteriaOf(key string, req payload.SummarizeRequest, rec *criteriaRecord) (string, error) {
	r := c.s
	role := r.roles[rec.Role]
	if role == nil {
		return "", fmt.Errorf("%w: criteria %s: the plan has no role %q", errPermanent, key, rec.Role)
	}
	id := criteriaIdentityOf(r.v, role, req)
	d, err := id.digest()
	if err != nil {
		return "", fmt.Errorf("%w: criteria %s: %v", errPermanent, key, err)
	}
	rec.Digest = d
	if was, ok := journaledCriteria(r.j, key); ok {
		if was.From == criteriaReused {
			return was.Text, nil
		}
	} else if _, called := r.j.Call(journal.KindCall, key); !called {
		// Nothing journaled: reuse the replayed run's, or the store's.
		if text, ok := c.reusable(key, d, &id); ok {
			rec.Text, rec.From = text, criteriaReused
			return text, r.j.Append(journal.KindCriteria, key, rec)
		}
	}
	var resp payload.SummarizeResponse
	err = r.complete(rec.Role, key, req, &resp)
	switch {
	case errors.Is(err, errCallFailed):
		return "", nil
	case err != nil:
		return "", err
	}
	rec.Text, rec.From = resp.Summary, criteriaGenerated
	if _, ok := journaledCriteria(r.j, key); !ok {
		if err := r.j.Append(journal.KindCriteria, key, rec); err != nil {
			return "", err
		}
	}
	if s, ok := storeOf(r.opts); ok && r.replay == nil {
		st := &storedCriteria{Identity: id, Text: rec.Text, Run: r.opts.ID, Role: rec.Role, At: r.opts.Clock.Now().UTC()}
		switch stored, err := s.put(d, st); {
		case err != nil:
			r.progress.logf("criteria of task %s by role %s are not kept for later runs: %v", rec.Task, rec.Role, err)
		case !stored:
			r.progress.logf("criteria of task %s by role %s are not kept for later runs: the text is empty or over %d bytes, or the store holds %d entries", rec.Task, rec.Role, maxStoredCriteria, maxStoreEntries)
		}
	}
	return rec.Text, nil
}

// reusable is the text a run reuses for key without a call: the replayed
// run's reused text when replaying, else the store's entry of digest d.
// An entry that cannot be read is logged and asked again.
func (c llmCall) reusable(key, d string, id *criteriaIdentity) (string, bool) {
	r := c.s
	if r.replay != nil {
		was, ok := journaledCriteria(r.replay.j, key)
		return was.Text, ok && was.From == criteriaReused
	}
	s, ok := storeOf(r.opts)
	if !ok {
		return "", false
	}
	text, found, err := s.get(d, id)
	if err != nil {
		r.progress.logf("%v; asking the criteria role again", err)
	}
	return text, found && err == nil
}

// journaledCriteria is the criteria journal j holds under key.
func journaledCriteria(j *journal.Journal, key string) (criteriaRecord, bool) {
	var rec criteriaRecord
	d, ok := j.Call(journal.KindCriteria, key)
	if !ok || json.Unmarshal(d, &rec) != nil {
		return criteriaRecord{}, false
	}
	return rec, true
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
	return fmt.Sprintf("(the criteria role %s generates for task %s when the run first judges it, or the runs directory's criteria store holds from an earlier run)", p.CriteriaRole, t.Name)
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
