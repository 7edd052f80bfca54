package grpcshim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/assay-lang/assay/plugins"
	pb "github.com/assay-lang/assay/plugins/proto"
)

// fake records what reached the server side and answers with fixed values
// or a chosen error; the shims run over an in-memory gRPC connection.
type fake struct {
	err     error
	reason  string // Wait's reason, when set
	gotRun  *plugins.RunRequest
	gotComp *plugins.CompleteRequest
	gotUpd  *plugins.UpdateRequest
	gotDesc *plugins.DescribeRequest
	gotTask *plugins.TasksRequest
}

func (f *fake) Describe(_ context.Context, r *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	f.gotDesc = r
	return &plugins.DescribeResponse{Knobs: []plugins.Knob{{Name: "lr", Mechanism: "optimizer", Default: "1", Values: []string{"1", "2"}}}}, f.err
}
func (f *fake) Start(_ context.Context, r *plugins.RunRequest) (*plugins.RunHandle, error) {
	f.gotRun = r
	if f.err != nil {
		return nil, f.err
	}
	return &plugins.RunHandle{RunID: r.RunID, Handle: "job-7"}, nil
}
func (f *fake) Wait(_ context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	if f.err != nil {
		return nil, f.err
	}
	reason := "oom"
	if f.reason != "" {
		reason = f.reason
	}
	return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusInfeasible, Metric: 1.25, Reason: reason, Logs: "l", WorkDir: "/w", Seconds: 3, GPUHours: 0.5}, nil
}
func (f *fake) Cancel(context.Context, *plugins.RunHandle) error { return f.err }
func (f *fake) Complete(_ context.Context, r *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	f.gotComp = r
	if f.err != nil {
		return nil, f.err
	}
	return &plugins.CompleteResponse{Text: "t", Payload: []byte(`{"a":1}`), Usage: plugins.Usage{In: 3, Out: 4}}, nil
}
func (f *fake) Update(_ context.Context, r *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	f.gotUpd = r
	if f.err != nil {
		return nil, f.err
	}
	return &plugins.UpdateResponse{State: []byte{1, 2}, Stats: map[string]float64{"entropy": 0.7}}, nil
}
func (f *fake) Tasks(_ context.Context, r *plugins.TasksRequest) (*plugins.TasksResponse, error) {
	f.gotTask = r
	if f.err != nil {
		return nil, f.err
	}
	return &plugins.TasksResponse{Tasks: []plugins.TaskInfo{{Name: "a", Split: "holdout", Baseline: 2, Scale: 0.5, Metric: "acc"}}}, nil
}

func dial(t *testing.T, f *fake) *grpc.ClientConn {
	t.Helper()
	ln := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	pb.RegisterTrainerServer(s, &TrainerGRPCServer{Impl: f})
	pb.RegisterLLMServer(s, &LLMGRPCServer{Impl: f})
	pb.RegisterBenchmarkServer(s, &BenchmarkGRPCServer{Impl: f})
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func TestRoundTripEveryField(t *testing.T) {
	f := &fake{}
	conn := dial(t, f)
	ctx := context.Background()
	tr, l, b := NewTrainerGRPCClient(conn), NewLLMGRPCClient(conn), NewBenchmarkGRPCClient(conn)

	cfg := map[string]any{"n": 2.5, "s": "x", "list": []any{1.0, "two"}, "obj": map[string]any{"b": true}}
	run := &plugins.RunRequest{
		RunID: "r1", Env: "e", Task: "t", Seed: -9,
		Proposal: plugins.Proposal{ID: "p", Text: "txt", Mechanism: "m", Edits: map[string]string{"lr": "2"}, Patch: "diff", Commit: "c0ffee"},
		Config:   cfg,
		Executor: plugins.ExecutorSpec{Kind: "slurm", Concurrency: 4, GPUs: 8, Slurm: map[string]any{"partition": "gpu"}},
		GPUs:     2, TimeLimitSeconds: 3600.5, WorkDir: "/tmp/w", Source: &plugins.Checkout{Repository: "/repo", Commit: "c0ffee"},
		Update: &plugins.PolicyJob{Step: 3, BatchFile: "/w/batch.jsonl", AdapterDir: "/w/adapter", BaseModel: "q", PreviousAdapter: "p-2", PreviousAdapterDir: "/w/prev",
			Algorithm: "grpo", LearningRate: 1e-6, ClipLow: 0.2, ClipHigh: 0.2, KLCoef: 0.04, TokenLevel: false, Epochs: 4, WeightDecay: 0.1, LoRARank: 32},
	}
	h, err := tr.Start(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run, f.gotRun); diff != "" {
		t.Errorf("RunRequest (-sent +received):\n%s", diff)
	}
	if *h != (plugins.RunHandle{RunID: "r1", Handle: "job-7"}) {
		t.Errorf("handle %+v", h)
	}
	res, err := tr.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	want := plugins.RunResult{RunID: "r1", Status: plugins.StatusInfeasible, Metric: 1.25, Reason: "oom", Logs: "l", WorkDir: "/w", Seconds: 3, GPUHours: 0.5}
	if *res != want {
		t.Errorf("RunResult %+v, want %+v", res, want)
	}
	d, err := tr.Describe(ctx, &plugins.DescribeRequest{Config: cfg})
	if err != nil || !cmp.Equal(d.Knobs, []plugins.Knob{{Name: "lr", Mechanism: "optimizer", Default: "1", Values: []string{"1", "2"}}}) || !cmp.Equal(f.gotDesc.Config, cfg) {
		t.Errorf("Describe = %+v, %v; config received %v", d, err, f.gotDesc.Config)
	}

	comp := &plugins.CompleteRequest{Role: "critic", Model: "m", Temperature: 0.7, Seed: 5, MaxTokens: 100, MaxPromptTokens: 900,
		Messages: []plugins.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}},
		Payload:  []byte(`{"x":1}`), State: []byte{9}, Config: cfg}
	cr, err := l.Complete(ctx, comp)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(comp, f.gotComp); diff != "" {
		t.Errorf("CompleteRequest (-sent +received):\n%s", diff)
	}
	if !cmp.Equal(cr, &plugins.CompleteResponse{Text: "t", Payload: []byte(`{"a":1}`), Usage: plugins.Usage{In: 3, Out: 4}}) {
		t.Errorf("CompleteResponse %+v", cr)
	}
	upd := &plugins.UpdateRequest{Model: "m", LearningRate: 1e-5, State: []byte{1},
		Algorithm: "dapo", ClipLow: 0.2, ClipHigh: 0.28, KLCoef: 0.01, TokenLevel: true, Epochs: 4, WeightDecay: 0.05,
		Samples: []plugins.Sample{{State: "s", Proposal: plugins.Proposal{ID: "p", Edits: map[string]string{"a": "b"}}, Advantage: -0.5, Group: "g/1", Reward: 2.5,
			Completion: " {\"proposals\": []}\n", Policy: plugins.SamplePolicy{Adapter: "policy-step-1", Path: "/w/a", Step: 1}}},
		Adapter: &plugins.Adapter{Name: "policy-step-1", Path: "/w/adapter"}}
	ur, err := l.Update(ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(upd, f.gotUpd); diff != "" {
		t.Errorf("UpdateRequest (-sent +received):\n%s", diff)
	}
	if !cmp.Equal(ur, &plugins.UpdateResponse{State: []byte{1, 2}, Stats: map[string]float64{"entropy": 0.7}}) {
		t.Errorf("UpdateResponse %+v", ur)
	}
	tasks, err := b.Tasks(ctx, &plugins.TasksRequest{Env: "e", Config: cfg})
	if err != nil || !cmp.Equal(tasks.Tasks, []plugins.TaskInfo{{Name: "a", Split: "holdout", Baseline: 2, Scale: 0.5, Metric: "acc"}}) || f.gotTask.Env != "e" {
		t.Errorf("Tasks = %+v, %v", tasks, err)
	}
}

func TestErrorCodes(t *testing.T) {
	tests := []struct {
		err  error
		code codes.Code
		is   error
	}{
		{fmt.Errorf("no training here: %w", plugins.ErrUnsupported), codes.Unimplemented, plugins.ErrUnsupported},
		{fmt.Errorf("config.command: %w", plugins.ErrInvalidConfig), codes.InvalidArgument, plugins.ErrInvalidConfig},
		{context.Canceled, codes.Canceled, context.Canceled},
		{fmt.Errorf("slurm: %w", context.DeadlineExceeded), codes.DeadlineExceeded, context.DeadlineExceeded},
		{status.Error(codes.ResourceExhausted, "quota"), codes.ResourceExhausted, nil},
		{errors.New("disk full"), codes.Unknown, nil},
		{fmt.Errorf("run r7: %w", plugins.ErrUnknownRun), codes.NotFound, plugins.ErrUnknownRun},
		{plugins.WithKind(plugins.ErrConfig, errors.New("tinylm config: unknown key")), codes.InvalidArgument, plugins.ErrConfig},
		{fmt.Errorf("no GPU driver: %w", plugins.ErrPluginStart), codes.FailedPrecondition, plugins.ErrPluginStart},
		{plugins.WithKind(plugins.ErrUnparsed, errors.New("no verdict")), codes.OutOfRange, plugins.ErrUnparsed},
		// A plugin written against grpc directly answers with bare codes.
		{status.Error(codes.NotFound, "no such job"), codes.NotFound, plugins.ErrUnknownRun},
		{status.Error(codes.InvalidArgument, "bad config"), codes.InvalidArgument, plugins.ErrConfig},
	}
	for _, tt := range tests {
		f := &fake{err: tt.err}
		conn := dial(t, f)
		for name, call := range map[string]func() error{
			"Start": func() error {
				_, err := NewTrainerGRPCClient(conn).Start(context.Background(), &plugins.RunRequest{})
				return err
			},
			"Cancel": func() error { return NewTrainerGRPCClient(conn).Cancel(context.Background(), &plugins.RunHandle{}) },
			"Update": func() error {
				_, err := NewLLMGRPCClient(conn).Update(context.Background(), &plugins.UpdateRequest{})
				return err
			},
			"Tasks": func() error {
				_, err := NewBenchmarkGRPCClient(conn).Tasks(context.Background(), &plugins.TasksRequest{})
				return err
			},
		} {
			err := call()
			var re *RemoteError
			if !errors.As(err, &re) || status.Code(err) != tt.code {
				t.Errorf("%s returning %v: got %v (code %v), want code %v", name, tt.err, err, status.Code(err), tt.code)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("%s returning %v: errors.Is(%v) is false", name, tt.err, tt.is)
			}
			if tt.is == nil {
				for _, k := range []error{plugins.ErrUnknownRun, plugins.ErrConfig, plugins.ErrPluginStart, plugins.ErrUnparsed} {
					if errors.Is(err, k) {
						t.Errorf("%s returning %v: errors.Is(%v) is true", name, tt.err, k)
					}
				}
			}
			if err != nil && !strings.Contains(err.Error(), status.Convert(tt.err).Message()) && !strings.Contains(err.Error(), tt.err.Error()) {
				t.Errorf("%s returning %v: message lost: %v", name, tt.err, err)
			}
		}
	}
}

func TestUnregisteredServiceIsUnsupported(t *testing.T) {
	ln := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	pb.RegisterTrainerServer(s, &TrainerGRPCServer{Impl: &fake{}})
	go s.Serve(ln)
	defer s.Stop()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := NewLLMGRPCClient(conn).Complete(context.Background(), &plugins.CompleteRequest{}); !errors.Is(err, plugins.ErrUnsupported) {
		t.Errorf("Complete on a trainer-only server: %v, want ErrUnsupported", err)
	}
}

func TestUnencodableConfig(t *testing.T) {
	conn := dial(t, &fake{})
	_, err := NewTrainerGRPCClient(conn).Describe(context.Background(), &plugins.DescribeRequest{Config: map[string]any{"f": func() {}}})
	if err == nil {
		t.Error("a config JSON cannot hold was sent")
	}
}

func TestPluginSet(t *testing.T) {
	if got := len(PluginSet(nil, nil, nil)); got != 3 {
		t.Errorf("host set has %d kinds, want 3", got)
	}
	set := PluginSet(&fake{}, nil, nil)
	if _, ok := set[plugins.KindTrainer]; !ok || len(set) != 1 {
		t.Errorf("trainer-only set = %v", set)
	}
	if v := VersionedPlugins(set); len(v) != 1 || v[ProtocolVersion] == nil {
		t.Errorf("VersionedPlugins = %v", v)
	}
}

// A plugin's error or reason (a server's 500 body inside it) reaches the
// host on one line: it cannot forge "assay: run X finished" or drive the
// terminal.
func TestPluginTextIsPrintable(t *testing.T) {
	forged := "HTTP 500: \x1b[2K\rboom\nassay: run r1 finished"
	conn := dial(t, &fake{err: errors.New(forged)})
	_, err := NewTrainerGRPCClient(conn).Start(context.Background(), &plugins.RunRequest{})
	if err == nil || strings.ContainsAny(err.Error(), "\n\r\x1b") || !strings.Contains(err.Error(), `boom\nassay: run r1 finished`) {
		t.Errorf("error: %q", err)
	}
	conn = dial(t, &fake{reason: forged})
	r, err := NewTrainerGRPCClient(conn).Wait(context.Background(), &plugins.RunHandle{RunID: "r1"})
	if err != nil || strings.ContainsAny(r.Reason, "\n\r\x1b") || !strings.Contains(r.Reason, `\nassay: run r1 finished`) {
		t.Errorf("reason: %q, %v", r.Reason, err)
	}
}

// A failed call's usage crosses the wire with its error, so the host
// charges attempts that a provider billed before the call failed.
func TestCompleteErrorCarriesUsage(t *testing.T) {
	f := &fake{err: plugins.WithUsage(fmt.Errorf("the answer does not fit the critic role: %w", plugins.ErrConfig), plugins.Usage{In: 1200, Out: 64})}
	conn := dial(t, f)
	_, err := NewLLMGRPCClient(conn).Complete(context.Background(), &plugins.CompleteRequest{Role: "critic"})
	u, ok := plugins.UsageOf(err)
	if !ok || u != (plugins.Usage{In: 1200, Out: 64}) {
		t.Fatalf("usage of %v = %+v, %v; want {1200 64}", err, u, ok)
	}
	if !errors.Is(err, plugins.ErrConfig) || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("error %v lost its kind or text", err)
	}
	f.err = errors.New("plain")
	if _, err := NewLLMGRPCClient(conn).Complete(context.Background(), &plugins.CompleteRequest{}); err == nil {
		t.Fatal("no error")
	} else if _, ok := plugins.UsageOf(err); ok {
		t.Errorf("an error without usage came back with usage: %v", err)
	}
}
