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
	if cv, ok := vars.(*prompt.CritiqueVars); ok && role.Prompt != nil {
		cv.Criteria = role.Prompt.Criteria
		if c, ok := role.Prompt.TaskCriteria[cv.Task.Name]; ok {
			cv.Criteria = c
		}
	}
	return prompt.Render(role.Name, t, vars)
}

// chatMessages is RenderChat as a request's messages.
func chatMessages(role *plan.Role, in any, body []byte) ([]plugins.Message, error) {
	msgs, err := RenderChat(role, in, body)
	if err != nil {
		return nil, err
	}
	out := make([]plugins.Message, len(msgs))
	for i, m := range msgs {
		out[i] = plugins.Message{Role: m.Role, Content: m.Content}
	}
	return out, nil
}
