package grpcshim

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"assay/plugins"
	pb "assay/plugins/proto"
)

var (
	_ plugin.GRPCPlugin = (*TrainerPlugin)(nil)
	_ plugins.Trainer   = (*TrainerGRPCClient)(nil)
	_ pb.TrainerServer  = (*TrainerGRPCServer)(nil)
)

// TrainerPlugin is the go-plugin plugin for the trainer kind. Impl is set on
// the plugin side only.
type TrainerPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl plugins.Trainer
}

// GRPCServer registers the Trainer service on the plugin side.
func (p *TrainerPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterTrainerServer(s, &TrainerGRPCServer{Impl: p.Impl})
	return nil
}

// GRPCClient returns a plugins.Trainer on the host side.
func (p *TrainerPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewTrainerGRPCClient(c), nil
}

// TrainerGRPCClient calls a Trainer service.
type TrainerGRPCClient struct{ client pb.TrainerClient }

// NewTrainerGRPCClient wraps a connection to a Trainer service.
func NewTrainerGRPCClient(c grpc.ClientConnInterface) *TrainerGRPCClient {
	return &TrainerGRPCClient{client: pb.NewTrainerClient(c)}
}

// Describe implements plugins.Trainer.
func (c *TrainerGRPCClient) Describe(ctx context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	cfg, err := marshalConfig("the trainer config", req.Config)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Describe(ctx, &pb.DescribeRequest{ConfigJson: cfg})
	if err != nil {
		return nil, fromStatus(err)
	}
	out := &plugins.DescribeResponse{Knobs: make([]plugins.Knob, 0, len(resp.GetKnobs()))}
	for _, k := range resp.GetKnobs() {
		out.Knobs = append(out.Knobs, plugins.Knob{
			Name:      k.GetName(),
			Mechanism: k.GetMechanism(),
			Default:   k.GetDefault(),
			Values:    k.GetValues(),
		})
	}
	return out, nil
}

// Start implements plugins.Trainer.
func (c *TrainerGRPCClient) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	cfg, err := marshalConfig("the trainer config", req.Config)
	if err != nil {
		return nil, err
	}
	slurm, err := marshalConfig("the executor's slurm settings", req.Executor.Slurm)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Start(ctx, &pb.RunRequest{
		RunId:    req.RunID,
		Env:      req.Env,
		Task:     req.Task,
		Seed:     req.Seed,
		Proposal: proposalToProto(req.Proposal),
		Executor: &pb.ExecutorSpec{
			Kind:        req.Executor.Kind,
			Concurrency: int64(req.Executor.Concurrency),
			Gpus:        int64(req.Executor.GPUs),
			SlurmJson:   slurm,
		},
		ConfigJson:       cfg,
		Gpus:             int64(req.GPUs),
		TimeLimitSeconds: req.TimeLimitSeconds,
		WorkDir:          req.WorkDir,
	})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &plugins.RunHandle{RunID: resp.GetRunId(), Handle: resp.GetHandle()}, nil
}

// Wait implements plugins.Trainer.
func (c *TrainerGRPCClient) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	resp, err := c.client.Wait(ctx, &pb.RunHandle{RunId: h.RunID, Handle: h.Handle})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &plugins.RunResult{
		RunID:    resp.GetRunId(),
		Status:   resp.GetStatus(),
		Metric:   resp.GetMetric(),
		Reason:   resp.GetReason(),
		Logs:     resp.GetLogs(),
		WorkDir:  resp.GetWorkDir(),
		Seconds:  resp.GetSeconds(),
		GPUHours: resp.GetGpuHours(),
	}, nil
}

// Cancel implements plugins.Trainer.
func (c *TrainerGRPCClient) Cancel(ctx context.Context, h *plugins.RunHandle) error {
	_, err := c.client.Cancel(ctx, &pb.RunHandle{RunId: h.RunID, Handle: h.Handle})
	return fromStatus(err)
}

// TrainerGRPCServer serves a plugins.Trainer.
type TrainerGRPCServer struct {
	pb.UnimplementedTrainerServer
	Impl plugins.Trainer
}

// Describe implements pb.TrainerServer.
func (s *TrainerGRPCServer) Describe(ctx context.Context, req *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	cfg, err := unmarshalConfig("the trainer config", req.GetConfigJson())
	if err != nil {
		return nil, err
	}
	resp, err := s.Impl.Describe(ctx, &plugins.DescribeRequest{Config: cfg})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &pb.DescribeResponse{}
	if resp == nil {
		return out, nil
	}
	for _, k := range resp.Knobs {
		out.Knobs = append(out.Knobs, &pb.Knob{Name: k.Name, Mechanism: k.Mechanism, Default: k.Default, Values: k.Values})
	}
	return out, nil
}

// Start implements pb.TrainerServer.
func (s *TrainerGRPCServer) Start(ctx context.Context, req *pb.RunRequest) (*pb.RunHandle, error) {
	cfg, err := unmarshalConfig("the trainer config", req.GetConfigJson())
	if err != nil {
		return nil, err
	}
	slurm, err := unmarshalConfig("the executor's slurm settings", req.GetExecutor().GetSlurmJson())
	if err != nil {
		return nil, err
	}
	h, err := s.Impl.Start(ctx, &plugins.RunRequest{
		RunID:    req.GetRunId(),
		Env:      req.GetEnv(),
		Task:     req.GetTask(),
		Seed:     req.GetSeed(),
		Proposal: proposalFromProto(req.GetProposal()),
		Config:   cfg,
		Executor: plugins.ExecutorSpec{
			Kind:        req.GetExecutor().GetKind(),
			Concurrency: int(req.GetExecutor().GetConcurrency()),
			GPUs:        int(req.GetExecutor().GetGpus()),
			Slurm:       slurm,
		},
		GPUs:             int(req.GetGpus()),
		TimeLimitSeconds: req.GetTimeLimitSeconds(),
		WorkDir:          req.GetWorkDir(),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	if h == nil {
		h = &plugins.RunHandle{RunID: req.GetRunId()}
	}
	return &pb.RunHandle{RunId: h.RunID, Handle: h.Handle}, nil
}

// Wait implements pb.TrainerServer.
func (s *TrainerGRPCServer) Wait(ctx context.Context, req *pb.RunHandle) (*pb.RunResult, error) {
	r, err := s.Impl.Wait(ctx, &plugins.RunHandle{RunID: req.GetRunId(), Handle: req.GetHandle()})
	if err != nil {
		return nil, toStatus(err)
	}
	if r == nil {
		r = &plugins.RunResult{RunID: req.GetRunId()}
	}
	return &pb.RunResult{
		RunId:    r.RunID,
		Status:   r.Status,
		Metric:   r.Metric,
		Reason:   r.Reason,
		Logs:     r.Logs,
		WorkDir:  r.WorkDir,
		Seconds:  r.Seconds,
		GpuHours: r.GPUHours,
	}, nil
}

// Cancel implements pb.TrainerServer.
func (s *TrainerGRPCServer) Cancel(ctx context.Context, req *pb.RunHandle) (*pb.CancelResponse, error) {
	if err := s.Impl.Cancel(ctx, &plugins.RunHandle{RunID: req.GetRunId(), Handle: req.GetHandle()}); err != nil {
		return nil, toStatus(err)
	}
	return &pb.CancelResponse{}, nil
}

func proposalToProto(p plugins.Proposal) *pb.Proposal {
	return &pb.Proposal{Id: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch}
}

func proposalFromProto(p *pb.Proposal) plugins.Proposal {
	return plugins.Proposal{
		ID:        p.GetId(),
		Text:      p.GetText(),
		Mechanism: p.GetMechanism(),
		Edits:     p.GetEdits(),
		Patch:     p.GetPatch(),
	}
}
