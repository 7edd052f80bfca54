package runtime

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// An in-process answer's Output is taken as it is when it has the type
// asked for; otherwise, or without one, the payload is decoded (strictly).
func TestDecodeAnswer(t *testing.T) {
	// Output of the type asked for: taken, the payload not read.
	var got payload.CritiqueResponse
	resp := &plugins.CompleteResponse{Payload: []byte(`not json`), Output: payload.CritiqueResponse{Label: "tie"}}
	if err := decodeAnswer(resp, &got); err != nil || got.Label != "tie" {
		t.Errorf("Output of the type asked for: %+v, %v", got, err)
	}
	// Output of another type: the payload decides.
	var pr payload.PredictResponse
	resp = &plugins.CompleteResponse{Payload: []byte(`{"predicted_gain":2,"confidence":0.5}`), Output: payload.CritiqueResponse{Label: "tie"}}
	if err := decodeAnswer(resp, &pr); err != nil || pr.PredictedGain != 2 {
		t.Errorf("Output of another type: %+v, %v", pr, err)
	}
	// A pointer Output is not the value type asked for: decoded.
	got = payload.CritiqueResponse{}
	resp = &plugins.CompleteResponse{Payload: []byte(`{"label":"lose"}`), Output: &payload.CritiqueResponse{Label: "tie"}}
	if err := decodeAnswer(resp, &got); err != nil || got.Label != "lose" {
		t.Errorf("pointer Output: %+v, %v", got, err)
	}
	// No Output: decoded, unknown fields refused as before.
	resp = &plugins.CompleteResponse{Payload: []byte(`{"label":"lose","extra":1}`)}
	if err := decodeAnswer(resp, &got); err == nil {
		t.Errorf("an unknown field was accepted: %+v", got)
	}
}

// How a role's answer is read is the plan's: every call of the role
// carries it in its payload for the plugin (a critic's verdict pattern,
// whichever phase calls it; a proposer's free-text format), and the
// default templates, rendered as a run and assay prompt render them, ask
// for that form.
func TestAnswerFormatReachesPayloadAndPrompt(t *testing.T) {
	critic := &plan.Role{Name: "judge", Kind: plugins.RoleCritic, Answer: &plan.Answer{Format: "pattern", Pattern: `Verdict: (\w+)`}}
	in := withAnswer(critic, payload.CritiqueRequest{Task: "t", Labels: payload.Labels3})
	if cr := in.(payload.CritiqueRequest); cr.Verdict != `Verdict: (\w+)` {
		t.Errorf("the critic's request carries verdict %q", cr.Verdict)
	}
	if p := withAnswer(critic, &payload.CritiqueRequest{Labels: payload.Labels3}).(*payload.CritiqueRequest); p.Verdict == "" {
		t.Error("a critic's request by pointer lost the pattern")
	}
	proposer := &plan.Role{Name: "ideas", Kind: plugins.RolePropose, Answer: &plan.Answer{Format: payload.IdeasList}}
	if pr := withAnswer(proposer, payload.ProposeRequest{Task: "t", N: 1}).(payload.ProposeRequest); pr.Format != payload.IdeasList {
		t.Errorf("the proposer's request carries format %q", pr.Format)
	}
	plain := &plan.Role{Name: "p", Kind: plugins.RolePropose}
	if pr := withAnswer(plain, payload.ProposeRequest{Task: "t"}).(payload.ProposeRequest); pr.Format != "" {
		t.Errorf("a JSON proposer's request carries format %q", pr.Format)
	}
	for _, c := range []struct {
		role *plan.Role
		in   any
		want string
	}{
		{critic, payload.CritiqueRequest{Task: "t", Labels: payload.Labels3}, "`Verdict: (\\w+)` matches it"},
		{proposer, payload.ProposeRequest{Task: "t", N: 2}, "numbered list of exactly 2 different ideas"},
	} {
		body, _ := payload.Encode(c.in)
		msgs, err := RenderChat(c.role, c.in, body)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msgs[0].Content, c.want) || strings.Contains(msgs[0].Content, "JSON object") {
			t.Errorf("%s's default system message:\n%s", c.role.Name, msgs[0].Content)
		}
	}
}

// A verdict read by named groups reaches the plugin with its rules, and
// the default critic message says which values make which label.
func TestAnswerVerdictsReachPayloadAndPrompt(t *testing.T) {
	pattern := `(?s)\[IMPROVEMENT\]\s*(?P<improvement>\w+).*?\[WINTIER\]\s*(?P<tier>\w+)`
	critic := &plan.Role{Name: "judge", Kind: plugins.RoleCritic, Answer: &plan.Answer{Format: "pattern", Pattern: pattern, Verdicts: []plan.Verdict{
		{Label: "BigWin", Groups: []plan.GroupValue{{Group: "improvement", Value: "improve"}, {Group: "tier", Value: "big"}}},
		{Label: "Tie", Groups: []plan.GroupValue{{Group: "improvement", Value: "tie"}}},
	}}}
	in := withAnswer(critic, payload.CritiqueRequest{Task: "t", Labels: payload.Labels5}).(payload.CritiqueRequest)
	if len(in.Verdicts) != 2 || in.Verdicts[0].Label != "BigWin" || in.Verdicts[0].Groups["tier"] != "big" || in.Verdicts[1].Groups["improvement"] != "tie" {
		t.Fatalf("the critic's request carries verdicts %+v", in.Verdicts)
	}
	if p := withAnswer(critic, &payload.CritiqueRequest{Labels: payload.Labels5, Verdict: pattern}).(*payload.CritiqueRequest); len(p.Verdicts) != 2 {
		t.Errorf("a request by pointer with the pattern but no verdicts got %+v", p.Verdicts)
	}
	label, err := payload.ParseVerdictGroups(in.Verdict, in.Verdicts, in.Labels, "[IMPROVEMENT] improve --- x\n[WINTIER] big --- y")
	if err != nil || label != payload.LabelBigWin {
		t.Errorf("the carried rules read %q, %v; want BigWin", label, err)
	}
	body, _ := payload.Encode(in)
	msgs, err := RenderChat(critic, in, body)
	if err != nil {
		t.Fatal(err)
	}
	want := `with its named groups reading improvement "improve" and tier "big" for BigWin; improvement "tie" for Tie.`
	if !strings.Contains(msgs[0].Content, want) {
		t.Errorf("the default system message does not say which values make which label:\n%s", msgs[0].Content)
	}
	if strings.Contains(msgs[1].Content, "IMPROVEMENT") || strings.Contains(msgs[1].Content, `"verdicts"`) {
		t.Errorf("how the answer is read reached the critic's input:\n%s", msgs[1].Content)
	}
}
