package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// callRequest identifies an LLM call's request. It is journaled with the
// call's answer (the call record's "req") so that a replay can tell the
// same call from a changed one: Sum digests every part in full, and Parts
// holds each part verbatim when it is short, else its digest and size, so
// a refusal can say what changed. It is bounded: the request's settings and
// the payload's top-level fields (at most maxPayloadParts, else the payload
// is one part), each at most partMax bytes and a key.
type callRequest struct {
	Sum   string            `json:"sum"`
	Parts map[string]string `json:"parts"`
}

const (
	partMax         = 64
	maxPayloadParts = 32
)

// requestOf is req's callRequest. req.Payload must be the encoded input:
// a call served in process that reads its input unencoded (a rehearsal's
// simulated model) journals no request, and is not replayable.
func requestOf(req *plugins.CompleteRequest) *callRequest {
	full := map[string][]byte{
		"role":              []byte(req.Role),
		"model":             []byte(strconv.Quote(req.Model)),
		"temperature":       strconv.AppendFloat(nil, req.Temperature, 'g', -1, 64),
		"seed":              strconv.AppendInt(nil, req.Seed, 10),
		"max_tokens":        strconv.AppendInt(nil, int64(req.MaxTokens), 10),
		"max_prompt_tokens": strconv.AppendInt(nil, int64(req.MaxPromptTokens), 10),
	}
	if len(req.State) > 0 {
		full["policy_state"] = req.State
	}
	if len(req.Messages) > 0 {
		b, _ := json.Marshal(req.Messages)
		full["messages"] = b
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(req.Payload, &fields) == nil && fields != nil && len(fields) <= maxPayloadParts {
		for k, v := range fields {
			full["payload."+k] = v
		}
	} else {
		full["payload"] = req.Payload
	}
	h := sha256.New()
	parts := make(map[string]string, len(full))
	for _, k := range slices.Sorted(maps.Keys(full)) {
		v := full[k]
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(len(v)), 10))
		h.Write([]byte{0})
		h.Write(v)
		if len(v) <= partMax {
			parts[k] = string(v)
		} else {
			d := sha256.Sum256(v)
			parts[k] = fmt.Sprintf("sha256:%s (%d bytes)", hex.EncodeToString(d[:8]), len(v))
		}
	}
	return &callRequest{Sum: hex.EncodeToString(h.Sum(nil)), Parts: parts}
}

// requestJSON is the journaled form of req's callRequest, or nil when the
// call's input was not encoded.
func requestJSON(req *plugins.CompleteRequest) json.RawMessage {
	if req.Payload == nil {
		return nil
	}
	b, err := json.Marshal(requestOf(req))
	if err != nil {
		return nil
	}
	return b
}

// diff says briefly how c differs from was: the parts added, removed or
// changed, the first few of them.
func (c *callRequest) diff(was *callRequest) string {
	keys := slices.Sorted(maps.Keys(c.Parts))
	for k := range was.Parts {
		if _, ok := c.Parts[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		a, inA := was.Parts[k]
		b, inB := c.Parts[k]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s added: %s", k, b))
		case !inB:
			out = append(out, fmt.Sprintf("%s removed (was %s)", k, a))
		case a != b:
			out = append(out, fmt.Sprintf("%s: %s -> %s", k, a, b))
		}
	}
	if len(out) == 0 {
		return "the requests' digests differ"
	}
	if len(out) > 4 {
		out = append(out[:4], fmt.Sprintf("and %d more", len(out)-4))
	}
	return plugins.Printable(strings.Join(out, "; "))
}

// sameButPromptLimit is req's request as was's when the two differ only
// in a prompt limit req raised: the prompt was sent under the lower limit,
// so it fits the higher one and gets the same answer (a spec whose
// tokens.in was raised after a prompt outgrew it replays the calls it
// made). Otherwise it is cur, req's own.
func sameButPromptLimit(req *plugins.CompleteRequest, was, cur *callRequest) *callRequest {
	lim, err := strconv.Atoi(was.Parts["max_prompt_tokens"])
	if err != nil || lim <= 0 || req.MaxPromptTokens <= lim {
		return cur
	}
	as := *req
	as.MaxPromptTokens = lim
	return requestOf(&as)
}

// replayCall answers an LLM call from the replayed journal (see Replay):
// the same call key, role and request, or the run stops with what
// changed. It holds and charges the dollars the earlier call cost, so caps
// act as they did, and journals the call again, so the replayed run's own
// journal is complete: it resumes, reports and replays like any run's.
func (r *service) replayCall(role *plan.Role, key string, req *plugins.CompleteRequest, in, out any) (string, error) {
	body, err := payload.Encode(in)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errPermanent, err)
	}
	req.Payload = body
	// The messages a plugin would have been sent, as send renders them:
	// part of the request the earlier run journaled.
	if req.Messages, err = chatMessages(role, in, body, (llmCall{r, role, key}).criteria(in)); err != nil {
		return "", fmt.Errorf("%w: the %s role's prompt: %v", errPermanent, role.Name, err)
	}
	hold := callHold(role)
	d, ok := r.replay.j.Call(journal.KindCall, key)
	if !ok {
		// The earlier run stopped before this call: at the dollar cap,
		// which stops this run here too, or for another reason.
		if err := r.budget.ReserveLLM(hold, role); err != nil {
			return "", err
		}
		r.budget.SettleLLM(hold, 0)
		return "", r.replay.errNotJournaled(fmt.Sprintf("%s call %s", role.Name, key))
	}
	var c callRecord
	var was callRequest
	refuse := func(why string) error {
		return plugins.WithKind(errPermanent, fmt.Errorf("replay of run %s refused at %s call %s: %s", r.replay.id, role.Name, key, why))
	}
	switch {
	case json.Unmarshal(d, &c) != nil:
		return "", refuse("its journal record cannot be read")
	case c.Role != role.Name:
		return "", refuse(fmt.Sprintf("the earlier run's call %s was the %s role's", key, c.Role))
	case len(c.Req) == 0 || json.Unmarshal(c.Req, &was) != nil:
		return "", refuse("the earlier run's journal records no request for it")
	}
	cur := requestOf(req)
	if cur.Sum != was.Sum {
		cur = sameButPromptLimit(req, &was, cur)
	}
	if cur.Sum != was.Sum {
		return "", refuse("its request differs from the earlier run's: " + cur.diff(&was))
	}
	if why := c.outOfBounds(role); why != "" {
		return "", refuse(why + ": the journal was edited, or is not one assay wrote; replay an unedited run")
	}
	if err := r.budget.ReserveLLM(hold, role); err != nil {
		return "", err
	}
	r.budget.SettleLLM(hold, callUSD(role, c.In, c.Out))
	if c.Breach != "" && r.budget.breach(c.Breach) {
		if err := r.j.SetMeta(metaBreach, c.Breach); err != nil {
			return "", fmt.Errorf("%w: %v", errPermanent, err)
		}
	}
	r.countCall(role, c.In, c.Out)
	if err := r.appendCall(key, c); err != nil {
		return "", err
	}
	if c.Failed != "" {
		r.n.callFailed()
		r.progress.logf("%s call %s failed in run %s; marking it failed and going on: %s", role.Name, key, r.replay.id, c.Failed)
		return "", fmt.Errorf("%s call %s: %w: %s", role.Name, key, errCallFailed, c.Failed)
	}
	for i := 0; i < c.Reasks; i++ {
		r.measured.reask(role.Name)
	}
	if c.Unparsed != "" {
		r.measured.unparsed(role.Name)
		r.watch.unparsed(role.Name, c.Unparsed)
		return "", fmt.Errorf("%s call %s: %w: %s", role.Name, key, errUnparsed, c.Unparsed)
	}
	r.n.callSucceeded()
	text := c.Text
	if text == "" && role.Kind == plugins.RolePropose {
		text = string(c.Payload) // journaled before answers kept their text
	}
	return text, payload.Decode(c.Payload, out)
}

// outOfBounds says how a journaled call's figures lie outside what the
// plan lets one call of its role be charged ("" when they do not): the
// bounds the runtime holds a server's reported usage to (chargeOf), each
// of the call's asks at most callBounds of tokens where they cost dollars
// (and at most a 32-bit count where they are free), no count below zero,
// and no more asks again than the role's answer block allows. A journal
// past them was not written by assay for this plan: its dollars and
// tokens would be charged as they stand.
func (c *callRecord) outOfBounds(role *plan.Role) string {
	reasks := 0
	if role.Answer != nil {
		reasks = role.Answer.Reasks
	}
	if c.Reasks < 0 || c.Reasks > reasks {
		return fmt.Sprintf("its journal says it was asked again %d times, and the %s role asks again at most %d", c.Reasks, role.Name, reasks)
	}
	asks := int64(c.Reasks) + 1
	inMax, outMax := callBounds(role)
	bound := func(hi int, price float64) int64 {
		if price == 0 {
			hi = math.MaxInt32
		}
		return asks * int64(hi)
	}
	if c.In < 0 || c.Out < 0 || int64(c.In) > bound(inMax, role.PriceIn) || int64(c.Out) > bound(outMax, role.PriceOut) {
		return fmt.Sprintf("its journal says %d tokens in and %d out over %d ask(s), outside the [0, %d] in and [0, %d] out one call of the %s role can be charged",
			c.In, c.Out, asks, bound(inMax, role.PriceIn), bound(outMax, role.PriceOut), role.Name)
	}
	return ""
}
