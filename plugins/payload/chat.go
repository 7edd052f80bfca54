package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/assay-lang/assay/plugins"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Chat is the chat a served model is sent for a role call when the caller
// gives no rendered messages: Assay's default system template, the
// caller's own messages, then the default user template over the payload
// (DefaultTemplates). The runtime renders a plan's templates itself
// (Render) and sends those messages instead.
func Chat(role string, messages []Message, body []byte) ([]Message, error) {
	t, ok := DefaultTemplates(role)
	if !ok {
		t = Templates{System: "Answer with a single JSON object. Reply with the JSON object only.", User: "Input:\n{{.Input}}"}
	}
	var vars any
	switch {
	case len(body) > 0 && ok:
		v, err := NewVars(role, nil, body)
		if err != nil {
			return nil, err
		}
		vars = v
	case len(body) > 0:
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err != nil {
			return nil, fmt.Errorf("the %s payload is not JSON: %v", role, err)
		}
		vars = &SummarizeVars{Input: buf.String()}
	case role == plugins.RoleCritic:
		return nil, fmt.Errorf("the critic payload's labels %q is not %q or %q", "", Labels3, Labels5)
	case ok:
		vars = reflect.New(VarsType(role)).Interface()
	default:
		vars = &SummarizeVars{}
	}
	sys, err := Render(role, Templates{System: t.System}, vars)
	if err != nil {
		return nil, err
	}
	msgs := append(sys, messages...)
	if len(body) > 0 {
		user, err := Render(role, Templates{User: t.User}, vars)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, user...)
	}
	if len(msgs) == 1 {
		return nil, fmt.Errorf("the %s call has neither messages nor a payload", role)
	}
	return msgs, nil
}
