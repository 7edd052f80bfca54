package grpcshim

import (
	"context"
	"math"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/assay-lang/assay/plugins"
	pb "github.com/assay-lang/assay/plugins/proto"
)

var (
	_ plugin.GRPCPlugin = (*LLMPlugin)(nil)
	_ plugins.LLM       = (*LLMGRPCClient)(nil)
	_ pb.LLMServer      = (*LLMGRPCServer)(nil)
)

// LLMPlugin is the go-plugin plugin for the llm kind. Impl is set on the
// plugin side only.
type LLMPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl plugins.LLM
}

// GRPCServer registers the LLM service on the plugin side.
func (p *LLMPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterLLMServer(s, &LLMGRPCServer{Impl: p.Impl})
	return nil
}

// GRPCClient returns a plugins.LLM on the host side.
func (p *LLMPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewLLMGRPCClient(c), nil
}

// LLMGRPCClient calls an LLM service.
type LLMGRPCClient struct{ client pb.LLMClient }

// NewLLMGRPCClient wraps a connection to an LLM service.
func NewLLMGRPCClient(c grpc.ClientConnInterface) *LLMGRPCClient {
	return &LLMGRPCClient{client: pb.NewLLMClient(c)}
}

// Complete implements plugins.LLM.
func (c *LLMGRPCClient) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	cfg, err := marshalConfig("the llm config", req.Config)
	if err != nil {
		return nil, err
	}
	msgs := make([]*pb.Message, 0, len(req.Messages))
	for _, m := range req.Messages {
		msgs = append(msgs, &pb.Message{Role: m.Role, Content: m.Content})
	}
	resp, err := c.client.Complete(ctx, &pb.CompleteRequest{
		Role:            req.Role,
		Model:           req.Model,
		Temperature:     req.Temperature,
		Seed:            req.Seed,
		MaxTokens:       int64(req.MaxTokens),
		MaxPromptTokens: int64(req.MaxPromptTokens),
		Messages:        msgs,
		Payload:         req.Payload,
		State:           req.State,
		ConfigJson:      cfg,
	})
	if err != nil {
		return nil, usageFromStatus(err, fromStatus(err))
	}
	return &plugins.CompleteResponse{
		Text:    resp.GetText(),
		Payload: resp.GetPayload(),
		Usage:   plugins.Usage{In: clampInt(resp.GetUsage().GetIn()), Out: clampInt(resp.GetUsage().GetOut())},
	}, nil
}

// Update implements plugins.LLM.
func (c *LLMGRPCClient) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	cfg, err := marshalConfig("the llm config", req.Config)
	if err != nil {
		return nil, err
	}
	samples := make([]*pb.Sample, 0, len(req.Samples))
	for _, s := range req.Samples {
		samples = append(samples, &pb.Sample{State: s.State, Proposal: proposalToProto(s.Proposal), Advantage: s.Advantage, Group: s.Group, Reward: s.Reward,
			Completion: s.Completion, Policy: &pb.SamplePolicy{Adapter: s.Policy.Adapter, Path: s.Policy.Path, Step: int64(s.Policy.Step)}})
	}
	resp, err := c.client.Update(ctx, &pb.UpdateRequest{
		Model:        req.Model,
		LearningRate: req.LearningRate,
		Samples:      samples,
		State:        req.State,
		ConfigJson:   cfg,
		Algorithm:    req.Algorithm,
		ClipLow:      req.ClipLow,
		ClipHigh:     req.ClipHigh,
		KlCoef:       req.KLCoef,
		TokenLevel:   req.TokenLevel,
		Epochs:       int64(req.Epochs),
		WeightDecay:  req.WeightDecay,
		Adapter:      adapterToProto(req.Adapter),
	})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &plugins.UpdateResponse{State: resp.GetState(), Stats: resp.GetStats()}, nil
}

// LLMGRPCServer serves a plugins.LLM.
type LLMGRPCServer struct {
	pb.UnimplementedLLMServer
	Impl plugins.LLM
}

// Complete implements pb.LLMServer.
func (s *LLMGRPCServer) Complete(ctx context.Context, req *pb.CompleteRequest) (*pb.CompleteResponse, error) {
	cfg, err := unmarshalConfig("the llm config", req.GetConfigJson())
	if err != nil {
		return nil, err
	}
	msgs := make([]plugins.Message, 0, len(req.GetMessages()))
	for _, m := range req.GetMessages() {
		msgs = append(msgs, plugins.Message{Role: m.GetRole(), Content: m.GetContent()})
	}
	resp, err := s.Impl.Complete(ctx, &plugins.CompleteRequest{
		Role:            req.GetRole(),
		Model:           req.GetModel(),
		Temperature:     req.GetTemperature(),
		Seed:            req.GetSeed(),
		MaxTokens:       int(req.GetMaxTokens()),
		MaxPromptTokens: int(req.GetMaxPromptTokens()),
		Messages:        msgs,
		Payload:         req.GetPayload(),
		State:           req.GetState(),
		Config:          cfg,
	})
	if err != nil {
		return nil, usageToStatus(err, toStatus(err))
	}
	if resp == nil {
		return &pb.CompleteResponse{Usage: &pb.Usage{}}, nil
	}
	return &pb.CompleteResponse{
		Text:    resp.Text,
		Payload: resp.Payload,
		Usage:   &pb.Usage{In: int64(resp.Usage.In), Out: int64(resp.Usage.Out)},
	}, nil
}

// Update implements pb.LLMServer.
func (s *LLMGRPCServer) Update(ctx context.Context, req *pb.UpdateRequest) (*pb.UpdateResponse, error) {
	cfg, err := unmarshalConfig("the llm config", req.GetConfigJson())
	if err != nil {
		return nil, err
	}
	samples := make([]plugins.Sample, 0, len(req.GetSamples()))
	for _, x := range req.GetSamples() {
		pol := x.GetPolicy()
		samples = append(samples, plugins.Sample{State: x.GetState(), Proposal: proposalFromProto(x.GetProposal()), Advantage: x.GetAdvantage(), Group: x.GetGroup(), Reward: x.GetReward(),
			Completion: x.GetCompletion(), Policy: plugins.SamplePolicy{Adapter: pol.GetAdapter(), Path: pol.GetPath(), Step: clampInt(pol.GetStep())}})
	}
	resp, err := s.Impl.Update(ctx, &plugins.UpdateRequest{
		Model:        req.GetModel(),
		LearningRate: req.GetLearningRate(),
		Algorithm:    req.GetAlgorithm(),
		ClipLow:      req.GetClipLow(),
		ClipHigh:     req.GetClipHigh(),
		KLCoef:       req.GetKlCoef(),
		TokenLevel:   req.GetTokenLevel(),
		Epochs:       int(req.GetEpochs()),
		WeightDecay:  req.GetWeightDecay(),
		Samples:      samples,
		State:        req.GetState(),
		Config:       cfg,
		Adapter:      adapterFromProto(req.GetAdapter()),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	if resp == nil {
		return &pb.UpdateResponse{}, nil
	}
	return &pb.UpdateResponse{State: resp.State, Stats: resp.Stats}, nil
}

func adapterToProto(a *plugins.Adapter) *pb.Adapter {
	if a == nil {
		return nil
	}
	return &pb.Adapter{Name: a.Name, Path: a.Path}
}

func adapterFromProto(a *pb.Adapter) *plugins.Adapter {
	if a == nil {
		return nil
	}
	return &plugins.Adapter{Name: a.GetName(), Path: a.GetPath()}
}

// usageToStatus attaches the usage of a failed call (plugins.WithUsage) to
// its status as a detail, so the host charges what the call's requests
// may be billed for.
func usageToStatus(err, st error) error {
	u, ok := plugins.UsageOf(err)
	if !ok {
		return st
	}
	s, _ := status.FromError(st)
	d, derr := s.WithDetails(&pb.Usage{In: int64(u.In), Out: int64(u.Out)})
	if derr != nil {
		return st
	}
	return d.Err()
}

// usageFromStatus reads the usage detail usageToStatus attached, if any.
func usageFromStatus(err, re error) error {
	s, ok := status.FromError(err)
	if !ok {
		return re
	}
	for _, d := range s.Details() {
		if u, ok := d.(*pb.Usage); ok {
			return plugins.WithUsage(re, plugins.Usage{In: clampInt(u.GetIn()), Out: clampInt(u.GetOut())})
		}
	}
	return re
}

// clampInt converts a wire count to an int, keeping it inside int32 so
// that no sum of a few of them overflows anywhere (the runtime bounds a
// call's charge itself).
func clampInt(n int64) int {
	return int(max(min(n, math.MaxInt32), math.MinInt32))
}
