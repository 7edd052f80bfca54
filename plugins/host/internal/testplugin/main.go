package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"google.golang.org/grpc"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/grpcshim"
	pb "github.com/assay-lang/assay/plugins/proto"
	"github.com/assay-lang/assay/plugins/sdk"
)

func main() {
	if sock := os.Getenv("ASSAY_TESTPLUGIN_SOCKET"); sock != "" {
		servePlain(sock)
		return
	}
	sdk.Serve(sdk.Plugins{Trainer: trainer{}, LLM: llm{}, Benchmark: bench{}})
}

func servePlain(sock string) {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := grpc.NewServer()
	pb.RegisterTrainerServer(s, &grpcshim.TrainerGRPCServer{Impl: trainer{}})
	pb.RegisterLLMServer(s, &grpcshim.LLMGRPCServer{Impl: llm{}})
	pb.RegisterBenchmarkServer(s, &grpcshim.BenchmarkGRPCServer{Impl: bench{}})
	fmt.Println("ready")
	if err := s.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// crashOnce exits the process the first time it sees marker path m, so a
// retried call succeeds on the restarted process.
func crashOnce(m string) {
	if m == "" {
		return
	}
	if _, err := os.Stat(m); err == nil {
		return
	}
	os.WriteFile(m, []byte("crashed"), 0o644)
	os.Exit(3)
}

type trainer struct{}

func (trainer) Describe(_ context.Context, req *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	sdk.Logger("testplugin").Info("describe called", "keys", len(req.Config))
	// With a control sequence the host's log must not pass on raw.
	fmt.Fprintln(os.Stderr, "plain stderr line \x1b[2K\rforged")
	if m, _ := req.Config["crash_once"].(string); m != "" {
		crashOnce(m)
	}
	if req.Config["crash_always"] == true {
		os.Exit(4)
	}
	if req.Config["panic"] == true {
		panic("testplugin: deliberate panic in Describe")
	}
	if msg, _ := req.Config["fail"].(string); msg != "" {
		return nil, errors.New(msg)
	}
	return &plugins.DescribeResponse{Knobs: []plugins.Knob{
		{Name: "lr", Mechanism: "optimizer", Default: "3e-4", Values: []string{"1e-4", "3e-4", "1e-3"}},
		{Name: "pid", Default: strconv.Itoa(os.Getpid())},
	}}, nil
}

func (trainer) Start(_ context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	if req.RunID == "crash" {
		os.Exit(5)
	}
	return &plugins.RunHandle{RunID: req.RunID, Handle: req.Env + "/" + req.Task + "/" + req.Proposal.Edits["lr"]}, nil
}

// StartBatch serves batches natively; its handles carry a "batch:" prefix
// so a test tells them from the host's one-Start-per-run fallback. A run
// called "crash" kills the process mid-batch.
func (t trainer) StartBatch(ctx context.Context, req *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	out := &plugins.BatchResponse{}
	for _, r := range req.Runs {
		h, err := t.Start(ctx, r)
		if err != nil {
			return nil, err
		}
		h.Handle = "batch:" + h.Handle
		out.Handles = append(out.Handles, h)
	}
	return out, nil
}

func (trainer) Wait(ctx context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	if path, ok := strings.CutPrefix(h.Handle, "block:"); ok {
		// Wait until the host cancels, then leave proof that the
		// cancellation reached this process.
		<-ctx.Done()
		os.WriteFile(path, []byte(ctx.Err().Error()), 0o644)
		return nil, ctx.Err()
	}
	if m, ok := strings.CutPrefix(h.Handle, "crash_once:"); ok {
		crashOnce(m)
	}
	return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusFinished, Metric: 2.5, Logs: h.Handle}, nil
}

func (trainer) Cancel(context.Context, *plugins.RunHandle) error { return nil }

type llm struct{}

func (llm) Complete(_ context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role == "crash" {
		os.Exit(6)
	}
	return &plugins.CompleteResponse{
		Text:    req.Role + ":" + req.Model,
		Payload: req.Payload,
		Usage:   plugins.Usage{In: len(req.Payload), Out: len(req.Payload)},
	}, nil
}

func (llm) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, fmt.Errorf("testplugin: %w", plugins.ErrUnsupported)
}

type bench struct{}

func (bench) Tasks(_ context.Context, req *plugins.TasksRequest) (*plugins.TasksResponse, error) {
	return &plugins.TasksResponse{Tasks: []plugins.TaskInfo{
		{Name: req.Env + "-t1", Split: "train", Baseline: 1.5, Scale: 0.1, Metric: "loss", Minimize: true},
	}}, nil
}
