package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/assay-lang/assay/plugins"
)

// instructions tell each role what to answer, in the shape of its
// response type in package plugins/payload.
var instructions = map[string]string{
	plugins.RolePropose: `You propose changes to a machine-learning training setup that improve its metric on the given task. ` +
		`The input lists the task, the current solution (parent), earlier proposals with their measured gains (history) and the knobs you may change with their allowed values. ` +
		`Answer with a JSON object {"proposals": [{"ID": string, "Text": what to change and why, "Mechanism": the knob mechanism it acts through, "Edits": {knob name: allowed value}}]} holding exactly n proposals, each different, using only the listed knobs and values.`,
	plugins.RolePredict: `You predict how much a proposed change improves a training run's metric over the task's baseline, from the measured records given. ` +
		`Answer with a JSON object {"predicted_gain": number, "confidence": number from 0 to 1}.`,
	plugins.RoleCritic: `You judge whether the child proposal beats the parent on the task. ` +
		`Answer with a JSON object {"label": one of %s, "reason": one sentence}.`,
	plugins.RoleSummarize: `You describe a proposed change neutrally and briefly, without advocacy. ` +
		`Answer with a JSON object {"summary": string}.`,
	plugins.RoleBuild: `You implement the proposed idea as concrete edits of the trainer's knobs, using only the listed knobs and allowed values. ` +
		`Answer with a JSON object {"proposal": {"ID": string, "Text": string, "Mechanism": string, "Edits": {knob name: allowed value}}, "infeasible": boolean, "reason": string}; set infeasible with a reason when the idea cannot be expressed with the knobs.`,
}

func init() { instructions[plugins.RoleImplement] = instructions[plugins.RoleBuild] }

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat is the chat a served model is sent for a role call: the role's
// instructions, the caller's own messages, then the payload as indented
// JSON. The openai plugin sends it; a policy update's batch carries it as
// the prompt, so a proposer is trained on exactly what it is served.
func Chat(role string, messages []Message, body []byte) ([]Message, error) {
	inst, ok := instructions[role]
	if !ok {
		inst = "Answer with a single JSON object."
	}
	if role == plugins.RoleCritic {
		var in struct {
			Labels string `json:"labels"`
		}
		json.Unmarshal(body, &in)
		labels := LabelSet(in.Labels)
		if labels == nil {
			return nil, fmt.Errorf("the critic payload's labels %q is not %q or %q", in.Labels, Labels3, Labels5)
		}
		inst = fmt.Sprintf(inst, `"`+strings.Join(labels, `", "`)+`"`)
	}
	msgs := []Message{{Role: "system", Content: inst + " Reply with the JSON object only."}}
	msgs = append(msgs, messages...)
	if len(body) > 0 {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err != nil {
			return nil, fmt.Errorf("the %s payload is not JSON: %v", role, err)
		}
		msgs = append(msgs, Message{Role: "user", Content: "Input:\n" + buf.String()})
	}
	if len(msgs) == 1 {
		return nil, fmt.Errorf("the %s call has neither messages nor a payload", role)
	}
	return msgs, nil
}
