package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/assay-lang/assay/base/prompt"
	"github.com/assay-lang/assay/plugins"
)

// Chat is the chat a served model is sent for a role call when the caller
// gives no rendered messages: Assay's default system template, the
// caller's own messages, then the default user template over the payload
// (prompt.Defaults). The runtime renders a plan's templates itself
// (prompt.Render) and sends those messages instead.
func Chat(role string, messages []Message, body []byte) ([]Message, error) {
	t, ok := prompt.Defaults(role)
	if !ok {
		t = prompt.Templates{System: "Answer with a single JSON object. Reply with the JSON object only.", User: "Input:\n{{.Input}}"}
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
		vars = &prompt.SummarizeVars{Input: buf.String()}
	case role == plugins.RoleCritic:
		return nil, fmt.Errorf("the critic payload's labels %q is not %q or %q", "", Labels3, Labels5)
	case ok:
		vars = reflect.New(prompt.VarsType(role)).Interface()
	default:
		vars = &prompt.SummarizeVars{}
	}
	sys, err := prompt.Render(role, prompt.Templates{System: t.System}, vars)
	if err != nil {
		return nil, err
	}
	msgs := append(sys, messages...)
	if len(body) > 0 {
		user, err := prompt.Render(role, prompt.Templates{User: t.User}, vars)
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
