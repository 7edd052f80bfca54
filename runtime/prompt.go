package runtime

import (
	"github.com/assay-lang/assay/base/prompt"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// RenderChat is the chat a call of role is sent: the plan's templates of
// the role (Assay's defaults for a plan without them) over the call's
// input, in (a payload request value, or nil to read body), with body its
// JSON. The LLM call (complete) and a policy update's batch both render
// through it, so a proposer is trained on exactly what it was served, and
// `assay prompt` shows the same.
func RenderChat(role *plan.Role, in any, body []byte) ([]payload.Message, error) {
	return renderChat(role, in, body, "")
}

// renderChat is RenderChat with a critic's task criteria: a task's own
// (a task-suite manifest's) take the place of the role's; empty, the
// role's prompt criteria stand.
func renderChat(role *plan.Role, in any, body []byte, taskCriteria string) ([]payload.Message, error) {
	t, ok := prompt.Defaults(role.Kind)
	if p := role.Prompt; p != nil {
		t, ok = prompt.Templates{System: p.System, User: p.User}, true
	}
	if !ok {
		return payload.Chat(role.Kind, nil, body)
	}
	vars, err := payload.NewVars(role.Kind, in, body)
	if err != nil {
		return nil, err
	}
	// How the answer is read is the plan's, whatever the request says:
	// the default templates ask for that form.
	answer := prompt.Answer{Format: "json"}
	if a := role.Answer; a != nil {
		answer = prompt.Answer{Format: a.Format, Pattern: a.Pattern}
		for _, v := range a.Verdicts {
			pv := prompt.Verdict{Label: v.Label}
			for _, g := range v.Groups {
				pv.Groups = append(pv.Groups, prompt.Group{Name: g.Group, Value: g.Value})
			}
			answer.Verdicts = append(answer.Verdicts, pv)
		}
	}
	switch v := vars.(type) {
	case *prompt.ProposeVars:
		v.Answer = answer
	case *prompt.CritiqueVars:
		v.Answer = answer
	}
	if cv, ok := vars.(*prompt.CritiqueVars); ok {
		// The manifest's task criteria first, then the role's criteria_dir
		// for the task, then the role's own.
		if role.Prompt != nil {
			cv.Criteria = role.Prompt.Criteria
			if c, ok := role.Prompt.TaskCriteria[cv.Task.Name]; ok {
				cv.Criteria = c
			}
		}
		if taskCriteria != "" {
			cv.Criteria = taskCriteria
		}
	}
	msgs, err := prompt.Render(role.Name, t, vars)
	if cr, ok := in.(*payload.CritiqueRequest); ok && err == nil && cr.Hint.Text() != "" {
		// A critic training's teacher: the hint follows the critic's prompt.
		msgs = append(msgs, payload.Message{Role: "user", Content: cr.Hint.Text()})
	}
	return msgs, err
}

// criteriaOf are the own criteria of the task a critic's request in is
// about; empty for another role's request or a task without.
func (ts taskList) criteriaOf(in any) string {
	var env, task string
	switch q := in.(type) {
	case payload.CritiqueRequest:
		env, task = q.Env, q.Task
	case *payload.CritiqueRequest:
		env, task = q.Env, q.Task
	default:
		return ""
	}
	for _, t := range ts {
		if t.Env == env && t.Name == task {
			return t.Criteria
		}
	}
	return ""
}

// chatMessages is RenderChat as a request's messages, with the criteria
// of the call's task (taskList.criteriaOf).
func chatMessages(role *plan.Role, in any, body []byte, taskCriteria string) ([]plugins.Message, error) {
	msgs, err := renderChat(role, in, body, taskCriteria)
	if err != nil {
		return nil, err
	}
	out := make([]plugins.Message, len(msgs))
	for i, m := range msgs {
		out[i] = plugins.Message{Role: m.Role, Content: m.Content}
	}
	return out, nil
}
