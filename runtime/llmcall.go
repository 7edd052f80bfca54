package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime/journal"
)

// errCallFailed is an LLM call that failed after its retries and plugin
// restarts. It is journaled, so a resumed run sees the same failure, and
// the caller marks its candidate failed and goes on.
var errCallFailed = errors.New("call failed")

// errUnparsed is an LLM call whose answer could not be read, however often
// it was asked (plan.Answer.Reasks). It is a failed call to every caller
// but a critic's vote, which leaves it out of the verdict and counts it
// (MeasuredRole.Unparsed) rather than read it as the worst label.
var errUnparsed = fmt.Errorf("answer unparsed: %w", errCallFailed)

// maxFailedCalls is how many LLM calls in a row may fail before the run
// stops: a plugin that fails every call is broken, not unlucky.
const maxFailedCalls = 5

// complete makes one journaled LLM call of the role the plan names: a call
// whose result is in the journal is not made again. key must be unique in
// the run. Before the call its worst-case dollars are held against the
// dollar cap; after it, what it cost is charged.
func (r *service) complete(roleName, key string, in, out any) error {
	return r.completeAs(roleName, key, in, out, false)
}

// completeAs is complete; untrained sends a proposer's call with its
// initial policy instead of its latest one (an evaluation's base arm).
//
// The dollar cap holds against whatever a plugin or server reports: each
// plugin call (the runtime retries one after a crash) holds the most it
// can cost (callHold) before it is sent, and is charged what its requests
// report, bounded to [0, the hold]. A report above the hold is charged at
// the hold and stops the run (Budget.breach): the cap then still holds,
// and nothing more is spent on an account that cannot be trusted.
func (r *service) completeAs(roleName, key string, in, out any, untrained bool) error {
	_, err := r.completeText(roleName, key, in, out, untrained)
	return err
}

// completeText is completeAs, and returns the answer's text as the model
// returned it (a proposer's is journaled with the call, so that a resumed
// run trains on the same text).
func (r *service) completeText(roleName, key string, in, out any, untrained bool) (string, error) {
	role := r.roles[roleName]
	if role == nil {
		return "", fmt.Errorf("%w: call %s: the plan has no role %q", errPermanent, key, roleName)
	}
	if d, ok := r.j.Call(journal.KindCall, key); ok {
		if text, ok, err := (llmCall{r, role, key}).journaled(d, out); ok {
			return text, err
		}
	}
	if err := r.budget.CheckLLM(); err != nil {
		return "", err
	}
	in = withAnswer(role, in)
	// A critic's generated criteria are asked for before its first call on
	// a task: its prompt reads them.
	if err := (llmCall{r, role, key}).generateCriteria(in); err != nil {
		return "", err
	}
	req := &plugins.CompleteRequest{Role: role.Kind, Model: role.Model, Temperature: role.Temperature,
		Seed: int64(derive(r.v.Seed, key) >> 1), Input: in, Config: r.config[role.Plugin]}
	if role.TokensOut.High > 0 {
		req.MaxTokens = tokenBound(role.TokensOut.High)
	}
	if role.TokensIn.High > 0 {
		req.MaxPromptTokens = tokenBound(role.TokensIn.High)
	}
	if (role.Kind == plugins.RolePropose || role.Kind == plugins.RoleCritic) && !untrained {
		// A critic's state names its trained adapter (critic training).
		req.State = r.policy.of(role.Name)
	}
	if r.replay != nil {
		return r.replayCall(role, key, req, in, out)
	}
	return llmCall{r, role, key}.ask(req, in, out)
}

// withAnswer is in with how the role's answer is read (plan.Answer) in
// the payload, for the plugin that reads it: a critic's verdict pattern,
// a proposer's free-text format. Other requests are given back as they
// are.
func withAnswer(role *plan.Role, in any) any {
	a := role.Answer
	if a == nil {
		return in
	}
	switch q := in.(type) {
	case payload.CritiqueRequest:
		if a.Format == "pattern" {
			q.Verdict, q.Verdicts = a.Pattern, verdictRules(a)
		}
		return q
	case *payload.CritiqueRequest:
		if a.Format == "pattern" && (q.Verdict != a.Pattern || len(q.Verdicts) != len(a.Verdicts)) {
			c := *q
			c.Verdict, c.Verdicts = a.Pattern, verdictRules(a)
			return &c
		}
	case payload.ProposeRequest:
		q.Format = ideasFormat(role)
		return q
	case *payload.ProposeRequest:
		if f := ideasFormat(role); q.Format != f {
			c := *q
			c.Format = f
			return &c
		}
	}
	return in
}

// verdictRules are a pattern answer's verdicts read by named groups, as
// the payload carries them to the plugin that reads the answer; nil when
// the pattern's first group is the label.
func verdictRules(a *plan.Answer) []payload.VerdictRule {
	var out []payload.VerdictRule
	for _, v := range a.Verdicts {
		r := payload.VerdictRule{Label: v.Label, Groups: make(map[string]string, len(v.Groups))}
		for _, g := range v.Groups {
			r.Groups[g.Group] = g.Value
		}
		out = append(out, r)
	}
	return out
}

// ideasFormat is how a proposer role's answer is read as free text
// (payload.IdeasText or IdeasList), "" for its JSON object.
func ideasFormat(role *plan.Role) string {
	if role == nil || role.Answer == nil {
		return ""
	}
	if a := role.Answer; a.Format == payload.IdeasText || a.Format == payload.IdeasList {
		return a.Format
	}
	return ""
}

// journaledCall answers a call from its journal record d: what it cost is
// charged again and its answer decoded. ok is false for a record that
// cannot be read, which is then made again.
func (c llmCall) journaled(d []byte, out any) (text string, ok bool, err error) {
	r, role, key := c.s, c.role, c.key
	var rec callRecord
	if json.Unmarshal(d, &rec) != nil {
		return "", false, nil
	}
	if why := rec.outOfBounds(role); why != "" {
		return "", true, fmt.Errorf("%w: %s call %s: %s: the run's journal was edited", errPermanent, role.Name, key, why)
	}
	r.chargeLLM(role, rec.In, rec.Out)
	if rec.Breach != "" {
		r.budget.breach(rec.Breach)
	}
	if rec.Failed != "" {
		return "", true, fmt.Errorf("%s call %s: %w: %s", role.Name, key, errCallFailed, rec.Failed)
	}
	for i := 0; i < rec.Reasks; i++ {
		r.measured.reask(role.Name)
	}
	if rec.Unparsed != "" {
		r.measured.unparsed(role.Name)
		r.watch.unparsed(role.Name, rec.Unparsed)
		return "", true, fmt.Errorf("%s call %s: %w: %s", role.Name, key, errUnparsed, rec.Unparsed)
	}
	return rec.answerText(role.Kind), true, payload.Decode(rec.Payload, out)
}

// llmCall is one call of a role under its journal key: the steps of
// sending it, which need the service but are not the service's own.
type llmCall struct {
	s    *service
	role *plan.Role
	key  string
}

// answerText is the text of a journaled answer: a proposer's as the model
// returned it, or its parsed answer in a journal from before answers kept
// their text; other roles' answers are kept parsed only.
func (c *callRecord) answerText(kind string) string {
	if c.Text == "" && kind == plugins.RolePropose {
		return string(c.Payload)
	}
	return c.Text
}

// ask sends a call, asking again an answer that cannot be read as often as
// the role's answer block allows, and journals it: answered, unparsed or
// failed.
func (c llmCall) ask(req *plugins.CompleteRequest, in, out any) (string, error) {
	r, role, key := c.s, c.role, c.key
	// used sums what the call's plugin calls were charged, in tokens.
	var used plugins.Usage
	var breach string
	callStart := r.opts.Clock.Now()
	resp, asked, err := c.sendAsking(req, in, out, &used, &breach)
	rec := callRecord{Role: role.Name, Req: requestJSON(req), Reasks: asked, In: used.In, Out: used.Out, Breach: breach}
	if errors.Is(err, plugins.ErrUnparsed) && r.ctx.Err() == nil {
		r.progress.logf("%s call %s: the answer cannot be read after %d asks; counting it unparsed: %v", role.Name, key, asked+1, err)
		r.countCall(role, used.In, used.Out)
		r.measured.unparsed(role.Name)
		rec.Unparsed = err.Error()
		r.watch.unparsed(role.Name, rec.Unparsed)
		if jerr := r.appendCall(key, rec); jerr != nil {
			return "", jerr
		}
		return "", fmt.Errorf("%s call %s: %w: %v", role.Name, key, errUnparsed, err)
	}
	if err != nil {
		if r.ctx.Err() != nil || errors.Is(err, ErrBudget) || isPermanent(err) || r.n.callFailed() >= maxFailedCalls {
			return "", fmt.Errorf("%s call %s: %w", role.Name, key, err)
		}
		r.progress.logf("%s call %s failed; marking it failed and going on: %v", role.Name, key, err)
		r.countCall(role, used.In, used.Out)
		rec.Failed = err.Error()
		if jerr := r.appendCall(key, rec); jerr != nil {
			return "", jerr
		}
		return "", fmt.Errorf("%s call %s: %w: %v", role.Name, key, errCallFailed, err)
	}
	r.n.callSucceeded()
	rec.Seconds = r.opts.Clock.Now().Sub(callStart).Seconds()
	r.countCall(role, used.In, used.Out)
	rec.Payload = resp.Payload
	if role.Kind == plugins.RolePropose || strings.HasPrefix(key, criticTrainingKey) {
		// Only a proposer's text and a critic training's critiques are
		// trained on; other roles' answers are kept parsed only, which
		// keeps the journal small.
		rec.Text = resp.Text
		if rec.Text == "" {
			rec.Text = string(resp.Payload)
		}
	}
	return rec.Text, r.appendCall(key, rec)
}

// sendAsking sends req, and again with a seed of its own while its answer
// cannot be read, up to the role's reasks (each ask held and charged like
// any call); it returns how often it asked again. req keeps its first
// seed, which is the call's identity in the journal.
func (c llmCall) sendAsking(req *plugins.CompleteRequest, in, out any, used *plugins.Usage, breach *string) (*plugins.CompleteResponse, int, error) {
	r, role, key := c.s, c.role, c.key
	reasks := 0
	if role.Answer != nil {
		reasks = role.Answer.Reasks
	}
	seed := req.Seed
	defer func() { req.Seed = seed }()
	var resp *plugins.CompleteResponse
	var err error
	asked := 0
	for ask := 0; ask <= reasks; ask++ {
		asked = ask
		if ask > 0 {
			req.Seed = int64(derive(r.v.Seed, fmt.Sprintf("%s/reask/%d", key, ask)) >> 1)
			r.measured.reask(role.Name)
		}
		resp, err = c.send(req, in, out, used, breach)
		if !errors.Is(err, plugins.ErrUnparsed) || r.ctx.Err() != nil {
			break
		}
	}
	return resp, asked, err
}

// send makes one plugin call of a role's request, holding its worst case
// against the dollar cap and charging what it reports into used; breach
// says how a report broke its hold.
func (c llmCall) send(req *plugins.CompleteRequest, in, out any, used *plugins.Usage, breach *string) (*plugins.CompleteResponse, error) {
	r, role := c.s, c.role
	var resp *plugins.CompleteResponse
	err := r.plugins.call(role.Plugin, func(inst Instance) error {
		l := inst.LLM()
		if l == nil {
			return fmt.Errorf("%w: plugin %s is not an LLM", errPermanent, role.Plugin)
		}
		if ir, ok := l.(plugins.InputReader); (!ok || !ir.ReadsInput()) && req.Payload == nil {
			body, err := payload.Encode(in)
			if err != nil {
				return fmt.Errorf("%w: %v", errPermanent, err)
			}
			req.Payload = body
			// The plan's prompt, rendered here: a plugin sends these
			// messages as they are, and reads the payload if it wants.
			if req.Messages, err = chatMessages(role, in, body, c.criteria(in)); err != nil {
				return fmt.Errorf("%w: the %s role's prompt: %v", errPermanent, role.Name, err)
			}
		}
		hold := callHold(role)
		if err := r.budget.ReserveLLM(hold, role); err != nil {
			return err
		}
		var err error
		resp, err = l.Complete(r.ctx, req)
		c := chargeOf(role, resp, err)
		r.budget.SettleLLM(hold, callUSD(role, c.In, c.Out))
		used.In, used.Out = used.In+c.In, used.Out+c.Out
		if c.over != "" {
			if *breach == "" {
				*breach = fmt.Sprintf("the dollar cap stops the run: a %s call was reported to use %s, more than the %s it can cost (%d attempts of at most %d tokens in and %d out at its prices); it was charged %s",
					role.Name, c.over, dollars(hold), max(role.Attempts, 1), tokenBound(role.TokensIn.High), tokenBound(role.TokensOut.High), dollars(hold))
			}
			if r.budget.breach(*breach) {
				// Durable before anything else is reserved: a resume stops
				// here too, whatever order it asks for calls in.
				if jerr := r.j.SetMeta(metaBreach, *breach); jerr != nil {
					return fmt.Errorf("%w: %v", errPermanent, jerr)
				}
			}
		}
		if err == nil {
			// A payload that does not decode is an answer that cannot be
			// read, whoever parsed it.
			if err = decodeAnswer(resp, out); err != nil {
				err = plugins.WithKind(plugins.ErrUnparsed, err)
			}
		}
		return err
	})
	return resp, err
}

// metaBreach is the journal meta key that keeps how reported usage broke
// a call's hold, so that a resumed run stops at the cap as well.
const metaBreach = "dollar_breach"

// callHold is the most one plugin call of a role can cost, which it holds
// against the dollar cap before it is sent: each of its attempts (the
// plugin's retries plus one, every one of which a provider may bill) at
// the role's high tokens in and out at its prices. The prompt is limited
// to the high tokens in (CompleteRequest.MaxPromptTokens) and the answer
// to the high tokens out (MaxTokens), so this bounds what an honest server
// bills.
func callHold(role *plan.Role) float64 {
	in, out := callBounds(role)
	return callUSD(role, in, out)
}

// callBounds are the most tokens in and out one plugin call of a role can
// use over all its attempts.
func callBounds(role *plan.Role) (in, out int) {
	a := max(role.Attempts, 1)
	return a * tokenBound(role.TokensIn.High), a * tokenBound(role.TokensOut.High)
}

// tokenBound is a high token figure as a count; an unbounded one (or a
// huge one) is kept where products of it cannot overflow.
func tokenBound(high float64) int {
	if !(high < math.MaxInt32) { // also +Inf and NaN
		return math.MaxInt32
	}
	return int(math.Ceil(max(high, 0)))
}

// charge is what one plugin call is charged, in tokens; over says what a
// report above the call's bounds was.
type charge struct {
	In, Out int
	over    string
}

// chargeOf bounds what a plugin call reports to [0, its bounds]. An answer
// that reports no usage at all is counted at the plan's expected figures;
// a failed call reports what its requests may be billed for
// (plugins.WithUsage), and one that reports nothing is charged one
// attempt's worst case, since a provider may have billed it, unless it
// failed before anything could be sent (a permanent error) or because the
// run is stopping.
func chargeOf(role *plan.Role, resp *plugins.CompleteResponse, err error) charge {
	var u plugins.Usage
	switch {
	case err == nil && resp != nil:
		u = resp.Usage
		if u.In == 0 && u.Out == 0 {
			u = plugins.Usage{In: int(math.Round(role.TokensIn.Expected)), Out: int(math.Round(role.TokensOut.Expected))}
		}
	case err != nil:
		var ok bool
		if u, ok = plugins.UsageOf(err); !ok && !isPermanent(err) && !errors.Is(err, context.Canceled) {
			u = plugins.Usage{In: tokenBound(role.TokensIn.High), Out: tokenBound(role.TokensOut.High)}
		}
	}
	inMax, outMax := callBounds(role)
	var c charge
	var overIn, overOut bool
	c.In, overIn = bounded(u.In, inMax, role.PriceIn)
	c.Out, overOut = bounded(u.Out, outMax, role.PriceOut)
	if overIn || overOut {
		c.over = fmt.Sprintf("%d tokens in and %d out", u.In, u.Out)
	}
	return c
}

// bounded is a reported token count within [0, hi], and whether it was
// above hi where tokens cost dollars (a free side is only kept from
// overflowing). A negative count, which no bill can be, is charged at hi.
func bounded(n, hi int, price float64) (int, bool) {
	if n < 0 {
		return hi, false
	}
	if price == 0 {
		return min(n, math.MaxInt32), false
	}
	if n > hi {
		return hi, true
	}
	return n, false
}

// appendCall journals a call's record, encoded once (encoding/json would
// check and compact a Marshaler's output again).
func (r *service) appendCall(key string, c callRecord) error {
	b, err := c.MarshalJSON()
	if err != nil {
		return fmt.Errorf("%w: call %s: %v", errPermanent, key, err)
	}
	return r.j.Append(journal.KindCall, key, json.RawMessage(b))
}

func callUSD(role *plan.Role, in, out int) float64 {
	return (float64(in)*role.PriceIn + float64(out)*role.PriceOut) / 1e6
}

// policyStore is each proposer role's current checkpoint, and the policy
// step that made it.
type policyStore struct {
	mu   sync.Mutex
	by   map[string][]byte
	step map[string]int
	// named is each role's checkpoint as samplePolicyOf names it, read
	// once per checkpoint instead of once per proposal.
	named map[string]plugins.SamplePolicy
}

// sample names the policy of role's current checkpoint (samplePolicyOf).
func (p *policyStore) sample(role string) plugins.SamplePolicy {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sp, ok := p.named[role]; ok {
		return sp
	}
	sp := samplePolicyOf(p.by[role], p.step[role])
	if p.named == nil {
		p.named = map[string]plugins.SamplePolicy{}
	}
	p.named[role] = sp
	return sp
}

// of is role's current checkpoint (nil: the base model).
func (p *policyStore) of(role string) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.by[role]
}

// at is role's current checkpoint and the policy step that made it (0:
// the base model).
func (p *policyStore) at(role string) ([]byte, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.by[role], p.step[role]
}

// set makes st, made by policy step step, role's current checkpoint.
func (p *policyStore) set(role string, st []byte, step int) {
	p.mu.Lock()
	p.by[role] = st
	delete(p.named, role)
	if p.step == nil {
		p.step = map[string]int{}
	}
	p.step[role] = step
	p.mu.Unlock()
}

// MarshalJSON writes a call record without reflection: one is journaled
// per LLM call.
func (c callRecord) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64+len(c.Role)+len(c.Req)+len(c.Payload)+len(c.Text)+len(c.Failed)+len(c.Unparsed)+len(c.Breach))
	b = append(b, `{"role":`...)
	b = payload.AppendJSONString(b, c.Role)
	if len(c.Req) > 0 {
		// Made by requestJSON, or read back from a journal: valid JSON.
		b = append(b, `,"req":`...)
		b = append(b, c.Req...)
	}
	if len(c.Payload) > 0 {
		if !json.Valid(c.Payload) {
			return nil, fmt.Errorf("call record: the payload is not JSON")
		}
		b = append(b, `,"payload":`...)
		b = append(b, c.Payload...)
	}
	if c.Text != "" {
		b = append(b, `,"text":`...)
		b = payload.AppendJSONString(b, c.Text)
	}
	b = append(b, `,"in":`...)
	b = strconv.AppendInt(b, int64(c.In), 10)
	b = append(b, `,"out":`...)
	b = strconv.AppendInt(b, int64(c.Out), 10)
	if c.Failed != "" {
		b = append(b, `,"failed":`...)
		b = payload.AppendJSONString(b, c.Failed)
	}
	if c.Unparsed != "" {
		b = append(b, `,"unparsed":`...)
		b = payload.AppendJSONString(b, c.Unparsed)
	}
	if c.Reasks != 0 {
		b = append(b, `,"reasks":`...)
		b = strconv.AppendInt(b, int64(c.Reasks), 10)
	}
	if c.Breach != "" {
		b = append(b, `,"breach":`...)
		b = payload.AppendJSONString(b, c.Breach)
	}
	if c.Seconds != 0 {
		b = append(b, `,"seconds":`...)
		b = strconv.AppendFloat(b, c.Seconds, 'g', -1, 64)
	}
	return append(b, '}'), nil
}

type callRecord struct {
	Role string `json:"role"`
	// Req identifies the request (a callRequest), for a replay; absent
	// when the call's input was not encoded (a rehearsal's in-process
	// model) and in journals written before replay existed.
	Req     json.RawMessage `json:"req,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	// Text is a proposer's answer as the model returned it: what a policy
	// update trains on.
	Text   string `json:"text,omitempty"`
	In     int    `json:"in"`
	Out    int    `json:"out"`
	Failed string `json:"failed,omitempty"`
	// Unparsed says why the call's answer could not be read; Reasks how
	// often it was asked again, so a resumed run counts them too.
	Unparsed string `json:"unparsed,omitempty"`
	Reasks   int    `json:"reasks,omitempty"`
	// Breach says how the call's reported usage broke what it held; a
	// resumed run stops at the cap again.
	Breach string `json:"breach,omitempty"`
	// Seconds is how long the call took, retries included: what status
	// reports as the role's latency (Timing), never part of Totals.
	Seconds float64 `json:"seconds,omitempty"`
}

// chargeLLM counts a journaled call again on resume, at what it cost.
func (r *service) chargeLLM(role *plan.Role, in, out int) {
	r.budget.ChargeLLM(r.countCall(role, in, out))
}

// countCall counts one call of a role in the run's figures and returns
// what it cost.
func (r *service) countCall(role *plan.Role, in, out int) float64 {
	cost := callUSD(role, in, out)
	r.n.call()
	r.watch.call(role.Name)
	r.measured.call(role.Name, in, out, cost)
	return cost
}
