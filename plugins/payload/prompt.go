package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/assay-lang/assay/base/prompt"
	"github.com/assay-lang/assay/plugins"
)

// NewVars makes a role call's template variables from its request, a
// value or pointer of the role kind's request type, or nil to decode body.
// body is the request as JSON, which Input shows indented.
func NewVars(kind string, in any, body []byte) (any, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		return nil, fmt.Errorf("the %s payload is not JSON: %v", kind, err)
	}
	input := buf.String()
	if in == nil {
		req, err := requestFor(kind)
		if err != nil {
			return nil, err
		}
		// Leniently: a caller may send any JSON as the payload (a policy
		// update's state), which Input still shows whole.
		_ = json.Unmarshal(body, req)
		in = req
	}
	if v := reflect.ValueOf(in); v.Kind() == reflect.Pointer && !v.IsNil() {
		in = v.Elem().Interface()
	}
	switch r := in.(type) {
	case ProposeRequest:
		answer := prompt.Answer{Format: "json"}
		if r.Format != "" {
			// How the answer is read is no part of what the proposer is
			// asked about.
			answer.Format, r.Format = r.Format, ""
			input = indentJSON(r)
		}
		return &prompt.ProposeVars{Task: prompt.Task{Name: r.Task, Env: r.Env}, Parent: proposalPtr(r.Parent), History: records(r.History), Records: records(r.Records),
			Inspirations: records(r.Inspirations), Knobs: knobs(r.Knobs), N: r.N, Source: sourceVars(r.Source), Answer: answer, Input: input}, nil
	case PredictRequest:
		return &prompt.PredictVars{Task: prompt.Task{Name: r.Task, Env: r.Env}, Records: records(r.Records), Parent: proposalPtr(r.Parent), Proposal: prompt.Proposal(r.Proposal), Input: input}, nil
	case CritiqueRequest:
		answer := prompt.Answer{Format: "json"}
		if r.Verdict != "" {
			// How the answer is read is no part of what the critic judges.
			answer = prompt.Answer{Format: "pattern", Pattern: r.Verdict, Verdicts: promptVerdicts(r.Verdicts)}
			r.Verdict, r.Verdicts = "", nil
			input = indentJSON(r)
		}
		labels := LabelSet(r.Labels)
		if labels == nil {
			return nil, fmt.Errorf("the critic payload's labels %q is not %q or %q", r.Labels, Labels3, Labels5)
		}
		return &prompt.CritiqueVars{Task: prompt.Task{Name: r.Task, Env: r.Env}, Parent: prompt.Proposal(r.Parent), Child: prompt.Proposal(r.Child), Summary: r.Summary,
			Labels: labels, LabelSpace: r.Labels, Records: records(r.Records), Answer: answer, Input: input}, nil
	case SummarizeRequest:
		return &prompt.SummarizeVars{Task: prompt.Task{Name: r.Task}, Proposal: prompt.Proposal(r.Proposal), Input: input}, nil
	case ImplementRequest:
		return &prompt.BuildVars{Task: prompt.Task{Name: r.Task, Env: r.Env}, Proposal: prompt.Proposal(r.Proposal), Knobs: knobs(r.Knobs), Repair: r.Repair, Failure: r.Failure, Source: sourceVars(r.Source), Input: input}, nil
	}
	return nil, fmt.Errorf("no prompt variables for a %T of the %s role", in, kind)
}

// indentJSON is v as the indented JSON a prompt's .Input shows.
func indentJSON(v any) string {
	var b bytes.Buffer
	raw, _ := json.Marshal(v)
	json.Indent(&b, raw, "", "  ")
	return b.String()
}

func requestFor(kind string) (any, error) {
	switch kind {
	case plugins.RolePropose:
		return &ProposeRequest{}, nil
	case plugins.RolePredict:
		return &PredictRequest{}, nil
	case plugins.RoleCritic:
		return &CritiqueRequest{}, nil
	case plugins.RoleSummarize:
		return &SummarizeRequest{}, nil
	case plugins.RoleBuild, plugins.RoleImplement:
		return &ImplementRequest{}, nil
	}
	return nil, fmt.Errorf("no prompt for role kind %q", kind)
}

// Message is one chat message.
type Message = prompt.Message

func proposalPtr(p *plugins.Proposal) *prompt.Proposal {
	if p == nil {
		return nil
	}
	q := prompt.Proposal(*p)
	return &q
}

func records(rs []Record) []prompt.Record {
	if rs == nil {
		return nil
	}
	out := make([]prompt.Record, len(rs))
	for i, r := range rs {
		out[i] = prompt.Record{Task: r.Task, Env: r.Env, Proposal: prompt.Proposal(r.Proposal), Gain: r.Gain, Infeasible: r.Infeasible, Predicted: r.Predicted}
	}
	return out
}

func knobs(ks []plugins.Knob) []prompt.Knob {
	if ks == nil {
		return nil
	}
	out := make([]prompt.Knob, len(ks))
	for i, k := range ks {
		out[i] = prompt.Knob{Name: k.Name, Mechanism: k.Mechanism, Default: k.Default, Values: k.Values, Type: k.ValueType().Describe()}
	}
	return out
}

// sourceVars is the parent program a proposer or builder is shown, as
// template variables.
func sourceVars(c *SourceContext) *prompt.Source {
	if c == nil {
		return nil
	}
	out := &prompt.Source{Commit: c.Commit, Editable: c.Editable}
	for _, f := range c.Files {
		out.Files = append(out.Files, prompt.File(f))
	}
	return out
}

// promptVerdicts are rules as a template reads them, each rule's groups
// sorted by name.
func promptVerdicts(rules []VerdictRule) []prompt.Verdict {
	var out []prompt.Verdict
	for _, r := range rules {
		v := prompt.Verdict{Label: r.Label}
		for _, g := range slices.Sorted(maps.Keys(r.Groups)) {
			v.Groups = append(v.Groups, prompt.Group{Name: g, Value: r.Groups[g]})
		}
		out = append(out, v)
	}
	return out
}
