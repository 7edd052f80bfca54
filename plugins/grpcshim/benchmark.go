package grpcshim

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/assay-lang/assay/plugins"
	pb "github.com/assay-lang/assay/plugins/proto"
)

var (
	_ plugin.GRPCPlugin  = (*BenchmarkPlugin)(nil)
	_ plugins.Benchmark  = (*BenchmarkGRPCClient)(nil)
	_ pb.BenchmarkServer = (*BenchmarkGRPCServer)(nil)
)

// BenchmarkPlugin is the go-plugin plugin for the benchmark kind. Impl is
// set on the plugin side only.
type BenchmarkPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl plugins.Benchmark
}

// GRPCServer registers the Benchmark service on the plugin side.
func (p *BenchmarkPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterBenchmarkServer(s, &BenchmarkGRPCServer{Impl: p.Impl})
	return nil
}

// GRPCClient returns a plugins.Benchmark on the host side.
func (p *BenchmarkPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return NewBenchmarkGRPCClient(c), nil
}

// BenchmarkGRPCClient calls a Benchmark service.
type BenchmarkGRPCClient struct{ client pb.BenchmarkClient }

// NewBenchmarkGRPCClient wraps a connection to a Benchmark service.
func NewBenchmarkGRPCClient(c grpc.ClientConnInterface) *BenchmarkGRPCClient {
	return &BenchmarkGRPCClient{client: pb.NewBenchmarkClient(c)}
}

// Tasks implements plugins.Benchmark.
func (c *BenchmarkGRPCClient) Tasks(ctx context.Context, req *plugins.TasksRequest) (*plugins.TasksResponse, error) {
	cfg, err := marshalConfig("the tasks config", req.Config)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Tasks(ctx, &pb.TasksRequest{Env: req.Env, ConfigJson: cfg})
	if err != nil {
		return nil, fromStatus(err)
	}
	out := &plugins.TasksResponse{Tasks: make([]plugins.TaskInfo, 0, len(resp.GetTasks()))}
	for _, t := range resp.GetTasks() {
		out.Tasks = append(out.Tasks, plugins.TaskInfo{
			Name:     t.GetName(),
			Split:    t.GetSplit(),
			Baseline: t.GetBaseline(),
			Scale:    t.GetScale(),
			Metric:   t.GetMetric(),
			Minimize: t.GetMinimize(),
		})
	}
	return out, nil
}

// BenchmarkGRPCServer serves a plugins.Benchmark.
type BenchmarkGRPCServer struct {
	pb.UnimplementedBenchmarkServer
	Impl plugins.Benchmark
}

// Tasks implements pb.BenchmarkServer.
func (s *BenchmarkGRPCServer) Tasks(ctx context.Context, req *pb.TasksRequest) (*pb.TasksResponse, error) {
	cfg, err := unmarshalConfig("the tasks config", req.GetConfigJson())
	if err != nil {
		return nil, err
	}
	resp, err := s.Impl.Tasks(ctx, &plugins.TasksRequest{Env: req.GetEnv(), Config: cfg})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &pb.TasksResponse{}
	if resp == nil {
		return out, nil
	}
	for _, t := range resp.Tasks {
		out.Tasks = append(out.Tasks, &pb.TaskInfo{
			Name:     t.Name,
			Split:    t.Split,
			Baseline: t.Baseline,
			Scale:    t.Scale,
			Metric:   t.Metric,
			Minimize: t.Minimize,
		})
	}
	return out, nil
}
