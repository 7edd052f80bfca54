package grpcshim

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assay-lang/assay/plugins"
	pb "github.com/assay-lang/assay/plugins/proto"
)

var (
	_ plugin.GRPCPlugin    = (*TrainerPlugin)(nil)
	_ plugins.Trainer      = (*TrainerGRPCClient)(nil)
	_ plugins.BatchStarter = (*TrainerGRPCClient)(nil)
	_ pb.TrainerServer     = (*TrainerGRPCServer)(nil)
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
			Type:      k.GetType(),
			Min:       k.Min,
			Max:       k.Max,
			Pattern:   k.GetPattern(),
		})
	}
	return out, nil
}

// Start implements plugins.Trainer.
func (c *TrainerGRPCClient) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	in, err := runRequestToProto(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Start(ctx, in)
	if err != nil {
		return nil, fromStatus(err)
	}
	return &plugins.RunHandle{RunID: resp.GetRunId(), Handle: resp.GetHandle()}, nil
}

// StartBatch implements plugins.BatchStarter. A plugin built without it
// answers Unimplemented, which arrives as plugins.ErrUnsupported.
func (c *TrainerGRPCClient) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	in := &pb.BatchRequest{Runs: make([]*pb.RunRequest, 0, len(req.Runs))}
	for _, r := range req.Runs {
		m, err := runRequestToProto(r)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.RunID, err)
		}
		in.Runs = append(in.Runs, m)
	}
	resp, err := c.client.StartBatch(ctx, in)
	if err != nil {
		return nil, fromStatus(err)
	}
	if len(resp.GetHandles()) != len(req.Runs) {
		return nil, fmt.Errorf("plugin: StartBatch of %d runs returned %d handles", len(req.Runs), len(resp.GetHandles()))
	}
	out := &plugins.BatchResponse{Handles: make([]*plugins.RunHandle, len(resp.GetHandles()))}
	for i, h := range resp.GetHandles() {
		out.Handles[i] = &plugins.RunHandle{RunID: h.GetRunId(), Handle: h.GetHandle()}
	}
	return out, nil
}

func runRequestToProto(req *plugins.RunRequest) (*pb.RunRequest, error) {
	cfg, err := marshalConfig("the trainer config", req.Config)
	if err != nil {
		return nil, err
	}
	slurm, err := marshalConfig("the executor's slurm settings", req.Executor.Slurm)
	if err != nil {
		return nil, err
	}
	return &pb.RunRequest{
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
		Update:           policyJobToProto(req.Update),
		Source:           checkoutToProto(req.Source),
	}, nil
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
		Reason:   plugins.Printable(resp.GetReason()), // shown on one line of status and progress
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
		out.Knobs = append(out.Knobs, &pb.Knob{Name: k.Name, Mechanism: k.Mechanism, Default: k.Default, Values: k.Values,
			Type: k.Type, Min: k.Min, Max: k.Max, Pattern: k.Pattern})
	}
	return out, nil
}

// Start implements pb.TrainerServer.
func (s *TrainerGRPCServer) Start(ctx context.Context, req *pb.RunRequest) (*pb.RunHandle, error) {
	in, err := runRequestFromProto(req)
	if err != nil {
		return nil, err
	}
	h, err := s.Impl.Start(ctx, in)
	if err != nil {
		return nil, toStatus(err)
	}
	if h == nil {
		h = &plugins.RunHandle{RunID: req.GetRunId()}
	}
	return &pb.RunHandle{RunId: h.RunID, Handle: h.Handle}, nil
}

// StartBatch implements pb.TrainerServer. An implementation that is not a
// plugins.BatchStarter answers Unimplemented, as a plugin built before the
// call existed does.
func (s *TrainerGRPCServer) StartBatch(ctx context.Context, req *pb.BatchRequest) (*pb.BatchResponse, error) {
	bs, ok := s.Impl.(plugins.BatchStarter)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this trainer starts runs one at a time (no StartBatch)")
	}
	in := &plugins.BatchRequest{Runs: make([]*plugins.RunRequest, 0, len(req.GetRuns()))}
	for _, r := range req.GetRuns() {
		m, err := runRequestFromProto(r)
		if err != nil {
			return nil, err
		}
		in.Runs = append(in.Runs, m)
	}
	resp, err := bs.StartBatch(ctx, in)
	if err != nil {
		return nil, toStatus(err)
	}
	if resp == nil || len(resp.Handles) != len(in.Runs) {
		n := 0
		if resp != nil {
			n = len(resp.Handles)
		}
		return nil, status.Errorf(codes.Internal, "StartBatch of %d runs returned %d handles", len(in.Runs), n)
	}
	out := &pb.BatchResponse{Handles: make([]*pb.RunHandle, len(resp.Handles))}
	for i, h := range resp.Handles {
		if h == nil {
			return nil, status.Errorf(codes.Internal, "StartBatch returned no handle for run %s", in.Runs[i].RunID)
		}
		out.Handles[i] = &pb.RunHandle{RunId: h.RunID, Handle: h.Handle}
	}
	return out, nil
}

func runRequestFromProto(req *pb.RunRequest) (*plugins.RunRequest, error) {
	cfg, err := unmarshalConfig("the trainer config", req.GetConfigJson())
	if err != nil {
		return nil, err
	}
	slurm, err := unmarshalConfig("the executor's slurm settings", req.GetExecutor().GetSlurmJson())
	if err != nil {
		return nil, err
	}
	return &plugins.RunRequest{
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
		Update:           policyJobFromProto(req.GetUpdate()),
		Source:           checkoutFromProto(req.GetSource()),
	}, nil
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
	return &pb.Proposal{Id: p.ID, Text: p.Text, Mechanism: p.Mechanism, Edits: p.Edits, Patch: p.Patch, Commit: p.Commit}
}

func checkoutToProto(c *plugins.Checkout) *pb.Checkout {
	if c == nil {
		return nil
	}
	return &pb.Checkout{Repository: c.Repository, Commit: c.Commit}
}

func checkoutFromProto(c *pb.Checkout) *plugins.Checkout {
	if c == nil {
		return nil
	}
	return &plugins.Checkout{Repository: c.GetRepository(), Commit: c.GetCommit()}
}

func proposalFromProto(p *pb.Proposal) plugins.Proposal {
	return plugins.Proposal{
		ID:        p.GetId(),
		Text:      p.GetText(),
		Mechanism: p.GetMechanism(),
		Edits:     p.GetEdits(),
		Patch:     p.GetPatch(),
		Commit:    p.GetCommit(),
	}
}

func policyJobToProto(j *plugins.PolicyJob) *pb.PolicyJob {
	if j == nil {
		return nil
	}
	return &pb.PolicyJob{Step: int64(j.Step), BatchFile: j.BatchFile, AdapterDir: j.AdapterDir, BaseModel: j.BaseModel,
		PreviousAdapter: j.PreviousAdapter, PreviousAdapterDir: j.PreviousAdapterDir, Algorithm: j.Algorithm, LearningRate: j.LearningRate, ClipLow: j.ClipLow,
		ClipHigh: j.ClipHigh, KlCoef: j.KLCoef, TokenLevel: j.TokenLevel, Epochs: int64(j.Epochs), WeightDecay: j.WeightDecay, LoraRank: int64(j.LoRARank)}
}

func policyJobFromProto(j *pb.PolicyJob) *plugins.PolicyJob {
	if j == nil {
		return nil
	}
	return &plugins.PolicyJob{Step: int(j.GetStep()), BatchFile: j.GetBatchFile(), AdapterDir: j.GetAdapterDir(), BaseModel: j.GetBaseModel(),
		PreviousAdapter: j.GetPreviousAdapter(), PreviousAdapterDir: j.GetPreviousAdapterDir(), Algorithm: j.GetAlgorithm(), LearningRate: j.GetLearningRate(), ClipLow: j.GetClipLow(),
		ClipHigh: j.GetClipHigh(), KLCoef: j.GetKlCoef(), TokenLevel: j.GetTokenLevel(), Epochs: int(j.GetEpochs()), WeightDecay: j.GetWeightDecay(), LoRARank: int(j.GetLoraRank())}
}
