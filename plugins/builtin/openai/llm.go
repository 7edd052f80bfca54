package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"assay/plugins"
	"assay/plugins/payload"
	"assay/plugins/redact"
)

// llm implements plugins.LLM. It keeps one client per distinct config so
// that rate and concurrency limits hold across all calls with that config.
type llm struct {
	mu      sync.Mutex
	clients map[string]*client
	// newClient is replaced in tests.
	newClient func(Config) *client
	// transport, when set, carries every request (tests record its dials).
	transport http.RoundTripper
}

var _ plugins.LLM = (*llm)(nil)

func newLLM() *llm {
	return &llm{clients: map[string]*client{}, newClient: newClient}
}

func (l *llm) client(cfgMap map[string]any) (*client, error) {
	key, err := json.Marshal(cfgMap) // map keys are sorted: a stable key
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.clients[string(key)]; ok {
		return c, nil
	}
	cfg, err := parseConfig(cfgMap)
	if err != nil {
		return nil, err
	}
	c := l.newClient(cfg)
	if l.transport != nil {
		c.http.Transport = l.transport
	}
	l.clients[string(key)] = c
	return c, nil
}

// Complete renders the role call into a chat, sends it and checks the
// answer against the role's response type. Every error it returns is
// redacted: the runtime journals it, and a server may echo the key.
func (l *llm) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	c, err := l.client(req.Config)
	if err != nil {
		return nil, redact.Error(err)
	}
	resp, err := l.complete(ctx, c, req)
	if err != nil {
		return nil, redact.Error(err, c.key())
	}
	return resp, nil
}

func (l *llm) complete(ctx context.Context, c *client, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return nil, fmt.Errorf("openai plugin: no model for the %s role: set model on the role or in the plugin config", req.Role)
	}
	msgs, err := render(req)
	if err != nil {
		return nil, err
	}
	creq := &chatRequest{Model: model, Messages: msgs, Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	if req.Seed != 0 {
		seed := req.Seed
		creq.Seed = &seed
	}
	if c.cfg.JSONMode {
		creq.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	resp, err := c.chat(ctx, creq)
	if err != nil {
		return nil, fmt.Errorf("openai plugin, %s role, model %s: %w", req.Role, model, err)
	}
	text := resp.Choices[0].Message.Content
	answer, err := parseAnswer(req, text)
	if err != nil {
		if resp.Choices[0].FinishReason == "length" {
			err = fmt.Errorf("%w (the answer was cut off at max_tokens %d; raise it)", err, req.MaxTokens)
		}
		return nil, fmt.Errorf("openai plugin, %s role, model %s: %w", req.Role, model, err)
	}
	out := &plugins.CompleteResponse{Text: text, Payload: answer}
	if u := resp.Usage; u != nil {
		out.Usage = plugins.Usage{In: u.PromptTokens, Out: u.CompletionTokens}
	} else {
		// A server that reports no usage still costs tokens; estimate.
		in := 0
		for _, m := range msgs {
			in += payload.Tokens(m.Content) + 4
		}
		out.Usage = plugins.Usage{In: in, Out: payload.Tokens(text)}
	}
	return out, nil
}

// Update is not possible through a chat-completions API.
func (l *llm) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, fmt.Errorf("openai plugin cannot train a hosted model: %w", plugins.ErrUnsupported)
}

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

// render builds the chat: the role's instructions, the caller's own
// messages, then the payload as indented JSON.
func render(req *plugins.CompleteRequest) ([]chatMessage, error) {
	inst, ok := instructions[req.Role]
	if !ok {
		inst = "Answer with a single JSON object."
	}
	if req.Role == plugins.RoleCritic {
		var in struct {
			Labels string `json:"labels"`
		}
		json.Unmarshal(req.Payload, &in)
		labels := payload.LabelSet(in.Labels)
		if labels == nil {
			return nil, fmt.Errorf("openai plugin: the critic payload's labels %q is not %q or %q", in.Labels, payload.Labels3, payload.Labels5)
		}
		inst = fmt.Sprintf(inst, `"`+strings.Join(labels, `", "`)+`"`)
	}
	msgs := []chatMessage{{Role: "system", Content: inst + " Reply with the JSON object only."}}
	for _, m := range req.Messages {
		msgs = append(msgs, chatMessage{Role: m.Role, Content: m.Content})
	}
	if len(req.Payload) > 0 {
		var buf bytes.Buffer
		if err := json.Indent(&buf, req.Payload, "", "  "); err != nil {
			return nil, fmt.Errorf("openai plugin: the %s payload is not JSON: %v", req.Role, err)
		}
		msgs = append(msgs, chatMessage{Role: "user", Content: "Input:\n" + buf.String()})
	}
	if len(msgs) == 1 {
		return nil, fmt.Errorf("openai plugin: the %s call has neither messages nor a payload", req.Role)
	}
	return msgs, nil
}

// parseAnswer extracts the JSON object from the model's text, checks it
// against the role's response type and re-encodes it, dropping fields the
// type does not have so that strict decoders downstream accept it.
func parseAnswer(req *plugins.CompleteRequest, text string) ([]byte, error) {
	raw := extractJSON(text)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON object (%v): %q", err, excerpt(text, 200))
	}
	var out any
	var problem string
	switch req.Role {
	case plugins.RolePropose:
		var r payload.ProposeResponse
		problem = decodeInto(raw, &r)
		if problem == "" && len(r.Proposals) == 0 {
			problem = `it has no "proposals"`
		}
		out = &r
	case plugins.RolePredict:
		var r payload.PredictResponse
		problem = decodeInto(raw, &r)
		if _, ok := obj["predicted_gain"]; problem == "" && !ok {
			problem = `it has no "predicted_gain"`
		}
		out = &r
	case plugins.RoleCritic:
		var r payload.CritiqueResponse
		problem = decodeInto(raw, &r)
		var in struct {
			Labels string `json:"labels"`
		}
		json.Unmarshal(req.Payload, &in)
		if problem == "" && payload.LabelRank(in.Labels, r.Label) < 0 {
			problem = fmt.Sprintf("label %q is not one of %s", r.Label, strings.Join(payload.LabelSet(in.Labels), ", "))
		}
		out = &r
	case plugins.RoleSummarize:
		var r payload.SummarizeResponse
		problem = decodeInto(raw, &r)
		if problem == "" && r.Summary == "" {
			problem = `it has no "summary"`
		}
		out = &r
	case plugins.RoleBuild, plugins.RoleImplement:
		var r payload.ImplementResponse
		problem = decodeInto(raw, &r)
		out = &r
	default:
		return []byte(raw), nil
	}
	if problem != "" {
		return nil, fmt.Errorf("the answer does not fit the %s role: %s: %q", req.Role, problem, excerpt(text, 200))
	}
	return payload.Encode(out)
}

func decodeInto(raw string, v any) string {
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return err.Error()
	}
	return ""
}

// extractJSON strips a Markdown code fence or prose around the object,
// which some models add even when asked not to.
func extractJSON(text string) string {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimPrefix(s, "json")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		return strings.TrimSpace(s)
	}
	if !strings.HasPrefix(s, "{") {
		if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
			return s[i : j+1]
		}
	}
	return s
}

// New returns the plugin, for the assay binary to serve.
func New() plugins.LLM { return newLLM() }
