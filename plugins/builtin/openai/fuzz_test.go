package openai

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

var fuzzRoles = []string{plugins.RolePropose, plugins.RolePredict, plugins.RoleCritic, plugins.RoleSummarize, plugins.RoleBuild, "custom"}

// FuzzParseAnswer: whatever a model answers, parseAnswer returns an error
// or a payload that the role's strict decoder accepts.
func FuzzParseAnswer(f *testing.F) {
	f.Add(uint8(0), `{"proposals":[{"ID":"a","Edits":{"lr":"1"}}]}`)
	f.Add(uint8(1), `{"predicted_gain": 0.1, "confidence": 2}`)
	f.Add(uint8(2), "```json\n{\"label\":\"tie\"}\n```")
	f.Add(uint8(3), `Here: {"summary":"x"} done`)
	f.Add(uint8(4), `{"proposal":{"ID":"x"},"infeasible":false}`)
	f.Add(uint8(5), `{"a":[1,{"b":null}]}`)
	f.Add(uint8(0), "}{")
	f.Add(uint8(2), "```")
	f.Add(uint8(132), "Ideas:\n1. [optimizer] faster\n2. wider")
	f.Add(uint8(130), "train.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
	f.Add(uint8(130), "```diff\n--- train.py\n+++ train.py\n@@ -1 +1 @@\n-a\n+b\n```")
	f.Fuzz(func(t *testing.T, r uint8, text string) {
		role := fuzzRoles[int(r)%len(fuzzRoles)]
		in, _ := payload.Encode(payload.CritiqueRequest{Labels: payload.Labels3})
		if r >= 128 {
			// Free-text answers: a proposer's list of ideas, a source-mode
			// builder's change in any shape.
			switch role {
			case plugins.RolePropose:
				in, _ = payload.Encode(payload.ProposeRequest{N: 1, Format: payload.IdeasList})
			case plugins.RoleBuild:
				in, _ = payload.Encode(payload.ImplementRequest{Source: &payload.SourceContext{Editable: []string{"train.py"}}})
			}
		}
		out, err := parseAnswer(&plugins.CompleteRequest{Role: role, Payload: in}, text)
		if err != nil {
			return
		}
		var v any
		switch role {
		case plugins.RolePropose:
			v = &payload.ProposeResponse{}
		case plugins.RolePredict:
			v = &payload.PredictResponse{}
		case plugins.RoleCritic:
			v = &payload.CritiqueResponse{}
		case plugins.RoleSummarize:
			v = &payload.SummarizeResponse{}
		case plugins.RoleBuild:
			v = &payload.ImplementResponse{}
		default:
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatalf("custom role payload %q is not a JSON object: %v", out, err)
			}
			return
		}
		if err := payload.Decode(out, v); err != nil {
			t.Fatalf("payload %q for %s fails the strict decoder: %v", out, role, err)
		}
	})
}

// FuzzParseConfig: any JSON config gives a Config or an error, never a
// panic, and an accepted one has usable limits.
func FuzzParseConfig(f *testing.F) {
	f.Add(`{}`)
	f.Add(`{"base_url":"http://localhost:11434/v1","max_concurrency":2,"requests_per_second":0.5}`)
	f.Add(`{"timeout_seconds":1e308,"backoff_seconds":1e-300}`)
	f.Add(`{"api_key":"x","max_retries":-1}`)
	f.Fuzz(func(t *testing.T, s string) {
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		c, err := parseConfig(m)
		if err != nil {
			return
		}
		if c.MaxConcurrency < 1 || c.MaxRetries < 0 || c.BaseURL == "" || c.APIKeyEnv == "" ||
			c.Timeout <= 0 || c.Backoff <= 0 || c.MaxBackoff <= 0 {
			t.Fatalf("accepted config with unusable limits: %+v", c)
		}
		if d := newClient(c).backoff(c.MaxRetries); d < 0 || d > c.MaxBackoff {
			t.Fatalf("backoff %v outside [0, %v]", d, c.MaxBackoff)
		}
	})
}

// FuzzParseRetryAfter never panics and never returns a negative delay.
func FuzzParseRetryAfter(f *testing.F) {
	f.Add("120")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add("-1")
	f.Add("NaN")
	f.Fuzz(func(t *testing.T, s string) {
		if d := parseRetryAfter(s, time.Unix(0, 0)); d < 0 || d > maxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %v", s, d)
		}
	})
}

// FuzzMeterAnswered: whatever usage a server's answer reports, a call's
// metered usage stays within [0, maxReported] and never goes down.
func FuzzMeterAnswered(f *testing.F) {
	f.Add(`{"usage":{"prompt_tokens":300,"completion_tokens":20}}`)
	f.Add(`{"usage":{"prompt_tokens":-5000,"completion_tokens":-1}}`)
	f.Add(`{"usage":{"prompt_tokens":1e15,"completion_tokens":1e308}}`)
	f.Add(`{"usage":{"prompt_tokens":"12"}}`)
	f.Add(`{"choices":[{"message":{"content":"{}"}}]}`)
	f.Add(`{"usage":null}`)
	f.Add(`not json`)
	f.Fuzz(func(t *testing.T, body string) {
		m := &meter{prompt: 1000, maxOut: 64}
		for i := 0; i < 3; i++ {
			in, out := m.in, m.out
			m.answered([]byte(body))
			if m.in < in || m.out < out || m.in > maxReported || m.out > maxReported {
				t.Fatalf("after %q: usage %d/%d from %d/%d", body, m.in, m.out, in, out)
			}
		}
		if u := m.usage(); u.In < 0 || u.Out < 0 {
			t.Fatalf("negative usage %+v", u)
		}
	})
}
