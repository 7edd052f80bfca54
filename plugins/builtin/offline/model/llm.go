package model

import (
	"context"
	"fmt"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Model serves every LLM role from the functions of this package. It holds
// no state between calls: the proposer's policy travels in the requests'
// State, so a restarted plugin resumes exactly.
type Model struct{}

var _ plugins.LLM = Model{}

// Complete answers one role call.
func (Model) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkConfig(req.Config); err != nil {
		return nil, err
	}
	var out any
	var text string
	switch req.Role {
	case plugins.RolePropose:
		var in payload.ProposeRequest
		if err := payload.Decode(req.Payload, &in); err != nil {
			return nil, err
		}
		pol, err := LoadPolicy(req.State)
		if err != nil {
			return nil, err
		}
		resp, err := pol.Propose(&in, req.Temperature, req.Seed)
		if err != nil {
			return nil, err
		}
		for _, p := range resp.Proposals {
			text += p.Text + "\n"
		}
		out = resp
	case plugins.RolePredict:
		var in payload.PredictRequest
		if err := payload.Decode(req.Payload, &in); err != nil {
			return nil, err
		}
		resp := Predict(&in, req.Temperature, req.Seed)
		text = fmt.Sprintf("Predicted gain %.4f (confidence %.2f).", resp.PredictedGain, resp.Confidence)
		out = resp
	case plugins.RoleCritic:
		var in payload.CritiqueRequest
		if err := payload.Decode(req.Payload, &in); err != nil {
			return nil, err
		}
		st, err := LoadCritic(req.State)
		if err != nil {
			return nil, err
		}
		resp, err := CritiqueState(&in, req.Temperature, req.Seed, st)
		if err != nil {
			return nil, err
		}
		text = resp.Label + ": " + resp.Reason
		out = resp
	case plugins.RoleSummarize:
		var in payload.SummarizeRequest
		if err := payload.Decode(req.Payload, &in); err != nil {
			return nil, err
		}
		resp := Summarize(&in, req.Seed)
		text = resp.Summary
		out = resp
	case plugins.RoleBuild, plugins.RoleImplement:
		var in payload.ImplementRequest
		if err := payload.Decode(req.Payload, &in); err != nil {
			return nil, err
		}
		resp := Implement(&in, req.Seed)
		text = "Implemented."
		if resp.Infeasible {
			text = "Failed: " + resp.Reason
		}
		out = resp
	default:
		return nil, fmt.Errorf("offline model: unknown role %q", req.Role)
	}
	b, err := payload.Encode(out)
	if err != nil {
		return nil, err
	}
	return &plugins.CompleteResponse{Text: text, Payload: b, Usage: usage(req, text, b)}, nil
}

// usage is what a call is billed: where the request carries its role's
// bounds (MaxPromptTokens, MaxTokens: the role's high tokens in and out),
// those bounds, else the tokens counted, the prompt in and the answer out
// at about four bytes a token. The prompt is the payload, which this model
// reads; the messages the runtime renders from it (the role's templates)
// count only when there is no payload, so the offline figures do not move
// with a prompt's wording. Billing the bound is the offline model's
// honest figure: its counts are a model of a bill, not one, and a role's
// spec declares what each of its calls uses. Neither above the bound (a
// call never costs more than the dollar cap held for it) nor below a
// single declared figure (the estimate's low), the usage of a spec served
// by the offline model lies inside its estimate at any price.
func usage(req *plugins.CompleteRequest, text string, out []byte) plugins.Usage {
	u := plugins.Usage{In: req.MaxPromptTokens, Out: req.MaxTokens}
	if u.In <= 0 {
		u.In = payload.Tokens(string(req.Payload))
		for _, m := range req.Messages {
			if len(req.Payload) > 0 {
				break
			}
			u.In += payload.Tokens(m.Content) + 4
		}
	}
	if u.Out <= 0 {
		u.Out = payload.Tokens(text) + payload.Tokens(string(out))
	}
	return u
}

// Update applies one policy-gradient update (GRPO's or DAPO's, as the
// request's hyperparameters say) to the proposer policy in req.State.
func (Model) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Adapter != nil {
		// An adapter trained elsewhere is not a policy this model can serve.
		return nil, fmt.Errorf("offline proposer: cannot serve adapter %s: %w", req.Adapter.Name, plugins.ErrUnsupported)
	}
	if err := checkConfig(req.Config); err != nil {
		return nil, err
	}
	if req.Algorithm == payload.AlgCriticSFT || req.Algorithm == payload.AlgCriticGRPO {
		c, err := LoadCritic(req.State)
		if err != nil {
			return nil, err
		}
		next, stats, err := c.UpdateCritic(req)
		if err != nil {
			return nil, err
		}
		return &plugins.UpdateResponse{State: next.Bytes(), Stats: stats}, nil
	}
	pol, err := LoadPolicy(req.State)
	if err != nil {
		return nil, err
	}
	next, stats, err := pol.Update(req)
	if err != nil {
		return nil, err
	}
	return &plugins.UpdateResponse{State: next.Bytes(), Stats: stats}, nil
}
