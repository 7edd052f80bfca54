package host

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/grpcshim"
)

// The benchmarks compare one small unary call (Benchmark.Tasks) through
// go-plugin and the host's restart wrapper with the same gRPC service
// served by the same binary on a unix socket without go-plugin. Both
// servers are real subprocesses.

func benchTasks(b *testing.B, bm plugins.Benchmark) {
	req := &plugins.TasksRequest{Env: "olmo3"}
	b.Run("serial", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			if _, err := bm.Tasks(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		// About 8 calls in flight on a 2-core machine.
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				if _, err := bm.Tasks(ctx, req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

func BenchmarkPluginCall(b *testing.B) {
	dir := b.TempDir()
	lock, err := Init(context.Background(), []Spec{{Name: "tp", Kind: plugins.KindBenchmark, Source: testPluginBin}}, filepath.Join(dir, testLock), Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := Open(context.Background(), lock, "tp")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	benchTasks(b, p.Benchmark())
}

func BenchmarkPlainGRPCUnixSocket(b *testing.B) {
	sock := filepath.Join(b.TempDir(), "plugin.sock")
	cmd := exec.Command(testPluginBin)
	cmd.Env = append(os.Environ(), "ASSAY_TESTPLUGIN_SOCKET="+sock)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("plain server: %q, %v", line, err)
	}
	conn, err := grpc.NewClient("unix:"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	benchTasks(b, grpcshim.NewBenchmarkGRPCClient(conn))
}

// BenchmarkPluginStart measures starting a plugin process (checksum,
// handshake, connection) and stopping it.
func BenchmarkPluginStart(b *testing.B) {
	dir := b.TempDir()
	lock, err := Init(context.Background(), []Spec{{Name: "tp", Kind: plugins.KindBenchmark, Source: testPluginBin}}, filepath.Join(dir, testLock), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := Open(context.Background(), lock, "tp")
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
