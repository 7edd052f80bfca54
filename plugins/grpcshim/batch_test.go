package grpcshim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/assay-lang/assay/plugins"
	pb "github.com/assay-lang/assay/plugins/proto"
)

// dialTrainer serves impl as the Trainer service over an in-memory
// connection.
func dialTrainer(t *testing.T, impl plugins.Trainer) *grpc.ClientConn {
	t.Helper()
	ln := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	pb.RegisterTrainerServer(s, &TrainerGRPCServer{Impl: impl})
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

// batchFake is a trainer that also serves StartBatch.
type batchFake struct {
	fake
	gotBatch *plugins.BatchRequest
	// short makes the implementation return one handle too few.
	short bool
}

func (f *batchFake) StartBatch(_ context.Context, r *plugins.BatchRequest) (*plugins.BatchResponse, error) {
	f.gotBatch = r
	if f.err != nil {
		return nil, f.err
	}
	out := &plugins.BatchResponse{}
	for i, run := range r.Runs {
		out.Handles = append(out.Handles, &plugins.RunHandle{RunID: run.RunID, Handle: fmt.Sprintf("slurm:41_%d", i)})
	}
	if f.short {
		out.Handles = out.Handles[:len(out.Handles)-1]
	}
	return out, nil
}

func TestStartBatchRoundTrip(t *testing.T) {
	f := &batchFake{}
	tr := NewTrainerGRPCClient(dialTrainer(t, f))
	var runs []*plugins.RunRequest
	for i := 0; i < 3; i++ {
		runs = append(runs, &plugins.RunRequest{
			RunID: fmt.Sprintf("calibration/1/%d", i), Env: "tiny", Task: "t0", Seed: int64(-i),
			Proposal: plugins.Proposal{ID: "p", Text: "txt", Mechanism: "m", Edits: map[string]string{"lr": fmt.Sprint(i)}, Patch: "diff"},
			Config:   map[string]any{"command": "x", "n": 1.5, "list": []any{"a", 2.0}},
			Executor: plugins.ExecutorSpec{Kind: "slurm", Concurrency: 2, GPUs: 4, Slurm: map[string]any{"array": true, "partition": "debug"}},
			GPUs:     1, TimeLimitSeconds: 60.5, WorkDir: fmt.Sprintf("/w/%d", i),
		})
	}
	resp, err := tr.StartBatch(context.Background(), &plugins.BatchRequest{Runs: runs})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&plugins.BatchRequest{Runs: runs}, f.gotBatch); diff != "" {
		t.Errorf("BatchRequest (-sent +received):\n%s", diff)
	}
	var want []*plugins.RunHandle
	for i, r := range runs {
		want = append(want, &plugins.RunHandle{RunID: r.RunID, Handle: fmt.Sprintf("slurm:41_%d", i)})
	}
	if diff := cmp.Diff(want, resp.Handles); diff != "" {
		t.Errorf("handles (-want +got):\n%s", diff)
	}

	// Errors keep their meaning across the wire.
	f.err = context.DeadlineExceeded
	if _, err := tr.StartBatch(context.Background(), &plugins.BatchRequest{Runs: runs}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
	// A batch answered with the wrong number of handles is an error, not a
	// silent misalignment of runs and handles.
	f.err, f.short = nil, true
	if _, err := tr.StartBatch(context.Background(), &plugins.BatchRequest{Runs: runs}); err == nil {
		t.Error("a short answer was accepted")
	}
}

// A trainer without StartBatch answers Unimplemented, which the host sees
// as plugins.ErrUnsupported.
func TestStartBatchUnsupported(t *testing.T) {
	f := &fake{}
	tr := NewTrainerGRPCClient(dialTrainer(t, f))
	_, err := tr.StartBatch(context.Background(), &plugins.BatchRequest{Runs: []*plugins.RunRequest{{RunID: "a"}}})
	if !errors.Is(err, plugins.ErrUnsupported) {
		t.Fatalf("got %v, want ErrUnsupported", err)
	}
	if f.gotRun != nil {
		t.Error("Start was called")
	}
}
