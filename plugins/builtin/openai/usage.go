package openai

import (
	"encoding/json"
	"errors"
	"math"
	"net"

	"github.com/assay-lang/assay/plugins"
)

// Prompt tokens are counted before a request is sent, by an upper bound
// rather than a tokenizer: one token per byte of every message's content
// (a byte-level BPE token spans at least one byte), plus promptPerMessage
// tokens per message and promptReply for the reply's start (the chat
// format's role and separator tokens). A prompt over the role's high
// tokens.in by this count is refused, not truncated, so the dollars the
// runtime holds for a call bound what it can be billed.
const (
	promptPerMessage = 8
	promptReply      = 8
)

// promptTokens is the upper bound on a chat's prompt tokens described
// above.
func promptTokens(msgs []chatMessage) int {
	n := promptReply
	for _, m := range msgs {
		n += len(m.Content) + promptPerMessage
	}
	return n
}

// maxReported bounds one attempt's reported tokens, so that no sum of a
// call's attempts overflows; the runtime bounds the charge itself.
const maxReported = math.MaxInt32

// meter sums what one call's requests may be billed for, attempt by
// attempt: an answered attempt (2xx) at the usage the server reports, each
// figure bounded to [0, maxReported] and a negative one counted at its
// worst case (without a usage object: the
// prompt's count and the answer's bytes); an attempt that was sent but got
// no answer (a timeout, a broken connection) at its worst case, the
// prompt's count and max_tokens; an attempt the server refused with an
// error status, or that never connected, at nothing.
type meter struct {
	prompt, maxOut int64
	in, out        int64
}

// clampTokens bounds a reported count to [0, maxReported]; a negative
// one, which no bill can be, counts as worst, the most it can be.
func clampTokens(x float64, worst int64) int64 {
	if x < 0 {
		return worst
	}
	return int64(min(x, maxReported))
}

func (m *meter) add(in, out int64) {
	m.in = min(m.in+in, maxReported)
	m.out = min(m.out+out, maxReported)
}

// answered counts an attempt the server answered with a 2xx body.
func (m *meter) answered(data []byte) {
	var r struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     float64 `json:"prompt_tokens"`
			CompletionTokens float64 `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(data, &r) == nil && r.Usage != nil {
		m.add(clampTokens(r.Usage.PromptTokens, m.prompt), clampTokens(r.Usage.CompletionTokens, m.maxOut))
		return
	}
	out := m.maxOut
	if len(r.Choices) > 0 && (out == 0 || int64(len(r.Choices[0].Message.Content)) < out) {
		out = int64(len(r.Choices[0].Message.Content))
	}
	m.add(m.prompt, out)
}

// failed counts an attempt that got no 2xx answer.
func (m *meter) failed(err error) {
	var he *httpError
	if errors.As(err, &he) {
		return // the server refused it: not billed
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return // never reached the server
	}
	m.add(m.prompt, m.maxOut)
}

func (m *meter) usage() plugins.Usage { return plugins.Usage{In: int(m.in), Out: int(m.out)} }

// PromptTokens is msgs' prompt as the plugin counts it against a role's
// tokens.in high (promptTokens), for assay check and validate to count a
// prompt as the plugin will before it is sent.
func PromptTokens(msgs []plugins.Message) int {
	cm := make([]chatMessage, len(msgs))
	for i, m := range msgs {
		cm[i] = chatMessage{Role: m.Role, Content: m.Content}
	}
	return promptTokens(cm)
}
