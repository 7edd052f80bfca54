package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/plugins/redact"
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
// answer against the role's response type. Every error and every answer
// it returns is redacted: the runtime journals them, and a server may
// echo the key.
func (l *llm) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	c, err := l.client(req.Config)
	if err != nil {
		return nil, redact.Error(err)
	}
	resp, err := l.complete(ctx, c, req)
	if err != nil {
		red := redact.Error(err, c.key())
		if u, ok := plugins.UsageOf(err); ok {
			red = plugins.WithUsage(red, u)
		}
		return nil, red
	}
	return resp, nil
}

func (l *llm) complete(ctx context.Context, c *client, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if (req.Role == plugins.RolePropose || req.Role == plugins.RoleCritic) && len(req.State) > 0 {
		// A trained policy: its adapter, which Update had the server load.
		st, err := parseState(req.State)
		if err != nil {
			return nil, err
		}
		if err := c.ensureAdapter(ctx, st); err != nil {
			// Nothing was sent to the model: nothing to charge.
			return nil, plugins.WithUsage(fmt.Errorf("openai plugin: serving the proposer's adapter %s again: %w", st.Adapter, err), plugins.Usage{})
		}
		model = st.Adapter
	}
	if model == "" {
		return nil, fmt.Errorf("openai plugin: no model for the %s role: set model on the role or in the plugin config", req.Role)
	}
	msgs, err := render(req)
	if err != nil {
		return nil, err
	}
	// The prompt is counted before it is sent (see promptTokens); one over
	// the role's limit is refused whole, and the error says so.
	m := &meter{prompt: int64(promptTokens(msgs)), maxOut: int64(max(req.MaxTokens, 0))}
	if lim := req.MaxPromptTokens; lim > 0 && m.prompt > int64(lim) {
		return nil, plugins.WithUsage(plugins.WithKind(plugins.ErrConfig, fmt.Errorf(
			"openai plugin, %s role: the prompt counts %d tokens (one per byte plus %d per message), over the role's high tokens.in of %d; it was refused, not sent and not truncated: raise the role's tokens.in high (or shorten what its input carries)",
			req.Role, m.prompt, promptPerMessage, lim)), plugins.Usage{})
	}
	creq := &chatRequest{Model: model, Messages: msgs, Temperature: req.Temperature, MaxTokens: req.MaxTokens}
	if req.Seed != 0 {
		seed := req.Seed
		creq.Seed = &seed
	}
	if c.cfg.JSONMode && readsJSON(req) {
		creq.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	resp, err := c.chat(ctx, creq, m)
	if err != nil {
		return nil, plugins.WithUsage(fmt.Errorf("openai plugin, %s role, model %s: %w", req.Role, model, err), m.usage())
	}
	// A server may echo the key inside a good answer too: redact it as
	// errors are, before the answer becomes a proposal that reaches the
	// journal, a run's overrides and run.json, and the report.
	text := redact.String(resp.Choices[0].Message.Content, c.key())
	answer, err := parseAnswer(req, text)
	if err != nil {
		if resp.Choices[0].FinishReason == "length" {
			err = fmt.Errorf("%w (the answer was cut off at max_tokens %d; raise it)", err, req.MaxTokens)
		}
		// The answer was billed even though it is of no use; the runtime
		// may ask again (plugins.ErrUnparsed).
		return nil, plugins.WithUsage(plugins.WithKind(plugins.ErrUnparsed, fmt.Errorf("openai plugin, %s role, model %s: %w", req.Role, model, err)), m.usage())
	}
	return &plugins.CompleteResponse{Text: text, Payload: answer, Usage: m.usage()}, nil
}

// Update points the role at an adapter the loop's update command trained:
// the server loads it (vLLM's /v1/load_lora_adapter), then unloads the
// adapter of the previous State, which no request names again, and the
// returned State names the new one, so later proposer calls with that
// State ask for it as their model (loading it again first where this
// process did not load it: a resumed run). Training itself is not possible
// through a chat-completions API: an update without an adapter is
// ErrUnsupported.
func (l *llm) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	if req.Adapter == nil {
		return nil, fmt.Errorf("openai plugin cannot train a hosted model: %w", plugins.ErrUnsupported)
	}
	if req.Adapter.Name == "" || req.Adapter.Path == "" {
		return nil, fmt.Errorf("openai plugin: an adapter needs a name and a path, got %+v", *req.Adapter)
	}
	c, err := l.client(req.Config)
	if err != nil {
		return nil, redact.Error(err)
	}
	var prev string
	if len(req.State) > 0 {
		st, err := parseState(req.State)
		if err != nil {
			return nil, err
		}
		prev = st.Adapter
	}
	if err := c.switchAdapter(ctx, prev, req.Adapter.Name, req.Adapter.Path); err != nil {
		return nil, redact.Error(fmt.Errorf("openai plugin: %w", err), c.key())
	}
	st, err := json.Marshal(policyState{Adapter: req.Adapter.Name, Path: req.Adapter.Path})
	if err != nil {
		return nil, err
	}
	return &plugins.UpdateResponse{State: st}, nil
}

// policyState is the State of a proposer whose policy an update command
// trained: the adapter the server serves it under.
type policyState struct {
	Adapter string `json:"adapter"`
	Path    string `json:"path"`
}

func parseState(b []byte) (policyState, error) {
	var st policyState
	if err := json.Unmarshal(b, &st); err != nil || st.Adapter == "" {
		return st, fmt.Errorf("openai plugin: the proposer's policy state is not an adapter this plugin loaded (%q): %w", excerpt(string(b), 80), plugins.ErrInvalidConfig)
	}
	return st, nil
}

// render is the chat to send: the messages the runtime rendered from the
// role's prompt templates, exactly as given; without them, Assay's default
// chat of the payload (payload.Chat).
func render(req *plugins.CompleteRequest) ([]chatMessage, error) {
	if len(req.Messages) > 0 {
		out := make([]chatMessage, len(req.Messages))
		for i, m := range req.Messages {
			out[i] = chatMessage{Role: m.Role, Content: m.Content}
		}
		return out, nil
	}
	msgs, err := payload.Chat(req.Role, nil, req.Payload)
	if err != nil {
		return nil, fmt.Errorf("openai plugin: %w", err)
	}
	out := make([]chatMessage, len(msgs))
	for i, m := range msgs {
		out[i] = chatMessage{Role: m.Role, Content: m.Content}
	}
	return out, nil
}

// parseAnswer reads the model's text as the role's response type and
// encodes it: a critic's verdict by its pattern, a proposer's ideas by
// its format, a builder's change in any shape (payload.ParseImplement),
// and otherwise the JSON object, checked and re-encoded without the
// fields the type does not have so that strict decoders downstream
// accept it.
func parseAnswer(req *plugins.CompleteRequest, text string) ([]byte, error) {
	if p := verdictPattern(req); p != "" {
		var in payload.CritiqueRequest
		json.Unmarshal(req.Payload, &in)
		label, err := payload.ParseVerdictGroups(p, in.Verdicts, in.Labels, text)
		if err != nil {
			return nil, fmt.Errorf("the critic's answer has no verdict: %v: %q", err, excerpt(text, 200))
		}
		return payload.Encode(&payload.CritiqueResponse{Label: label, Reason: excerpt(text, 500)})
	}
	switch req.Role {
	case plugins.RolePropose:
		if f := proposeFormat(req); f != "" {
			r, err := payload.ParseIdeas(f, text)
			if err != nil {
				return nil, fmt.Errorf("the proposer's answer holds no idea: %v: %q", err, excerpt(text, 200))
			}
			return payload.Encode(&r)
		}
	case plugins.RoleBuild, plugins.RoleImplement:
		var in payload.ImplementRequest
		json.Unmarshal(req.Payload, &in)
		r, err := payload.ParseImplement(text, in.Source)
		if err != nil {
			return nil, fmt.Errorf("the answer does not fit the %s role: %v: %q", req.Role, err, excerpt(text, 200))
		}
		return payload.Encode(&r)
	}
	raw := payload.ExtractJSON(text)
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

// New returns the plugin, for the assay binary to serve.
func New() plugins.LLM { return newLLM() }

// readsJSON reports whether req's answer is read as a JSON object only,
// so that json_mode may ask the server for one: not a critic's verdict
// read by a pattern, a proposer's free-text ideas, or a source-mode
// builder's change (a diff, SEARCH/REPLACE blocks or whole files).
func readsJSON(req *plugins.CompleteRequest) bool {
	switch req.Role {
	case plugins.RoleCritic:
		return verdictPattern(req) == ""
	case plugins.RolePropose:
		return proposeFormat(req) == ""
	case plugins.RoleBuild, plugins.RoleImplement:
		var in struct {
			Source json.RawMessage `json:"source"`
		}
		json.Unmarshal(req.Payload, &in)
		return len(in.Source) == 0 || string(in.Source) == "null"
	}
	return true
}

// proposeFormat is how a proposer's free-text answer is read, when its
// payload names a format (payload.ProposeRequest.Format).
func proposeFormat(req *plugins.CompleteRequest) string {
	if req.Role != plugins.RolePropose || len(req.Payload) == 0 {
		return ""
	}
	var in struct {
		Format string `json:"format"`
	}
	json.Unmarshal(req.Payload, &in)
	return in.Format
}

// verdictPattern is the pattern a critic's verdict is read with, when its
// payload names one (payload.CritiqueRequest.Verdict).
func verdictPattern(req *plugins.CompleteRequest) string {
	if req.Role != plugins.RoleCritic || len(req.Payload) == 0 {
		return ""
	}
	var in struct {
		Verdict string `json:"verdict"`
	}
	json.Unmarshal(req.Payload, &in)
	return in.Verdict
}
