package runtime_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/runtime"
)

// BenchmarkRealRunOverheadPlugin is the runtime's cost per real run through
// a real go-plugin trainer subprocess (the test trainer with no delay):
// 10,000 seed runs per iteration, with no LLM roles, so the figure is the
// runtime, the journal and the plugin protocol.
func BenchmarkRealRunOverheadPlugin(b *testing.B) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	dir := b.TempDir()
	bin := filepath.Join(dir, "testtrainer")
	cmd := exec.Command("go", "build", "-o", bin, "./plugins/internal/testtrainer")
	cmd.Dir = root
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, o)
	}
	lock, err := host.Init(context.Background(), []host.Spec{{Name: "trainer", Kind: "trainer", Source: bin}}, host.LockPathFor(filepath.Join(dir, "bench.hcl")), host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const n = 10000
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				v := &plan.Variant{Name: "default", Seed: 1,
					Plugins: []*plan.Plugin{{Name: "trainer", Kind: "trainer", Source: bin, Config: map[string]any{"delay_ms": 0.0}}, {Name: "llm", Kind: "llm"}},
					Prices:  map[string]float64{"CPU": 1},
					Envs: []*plan.Environment{{Name: "e", Direction: "minimize", Trainer: "trainer", GPU: "CPU", GPUs: 1, Hours: plan.Exact(1), GPUHours: plan.Exact(1),
						Tasks: []*plan.Task{{Name: "t", Split: "train", Baseline: ptr(2.0), Scale: ptr(1.0), Direction: plan.Minimize}}}},
					Roles:    []*plan.Role{{Name: "proposer", Kind: "proposer", Plugin: "llm", Concurrency: 8}},
					Executor: plan.Executor{Kind: "local", Concurrency: conc},
					Phases:   []*plan.Phase{{Name: "seed_records", Kind: plan.PhaseSeedRecords, SeedRecords: &plan.SeedRecordsBody{Select: "random", Proposer: "proposer", Proposals: map[string]int{"e": n}}, Calls: plan.Calls{RealRuns: map[string]plan.Count{"e": plan.Exact(n)}}}},
				}
				p := &plan.Plan{FormatVersion: plan.FormatVersion, Name: "bench", Variants: []*plan.Variant{v}}
				l := runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
					if pl.Kind == "llm" {
						return instantLLM{}, nil
					}
					return host.Open(ctx, lock, pl.Name)
				})
				b.StartTimer()
				res, err := runtime.Run(context.Background(), p, runtime.Options{ID: fmt.Sprintf("b%d", i), Dir: b.TempDir(), Plugins: l})
				if err != nil {
					b.Fatal(err)
				}
				if res.Totals.Finished != n {
					b.Fatalf("finished %d", res.Totals.Finished)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/run")
		})
	}
}

func ptr(x float64) *float64 { return &x }

// instantLLM proposes one fixed edit at once, in process.
type instantLLM struct{}

func (instantLLM) Trainer() plugins.Trainer     { return nil }
func (instantLLM) Benchmark() plugins.Benchmark { return nil }
func (instantLLM) Close() error                 { return nil }
func (l instantLLM) LLM() plugins.LLM           { return l }
func (instantLLM) Complete(context.Context, *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	return &plugins.CompleteResponse{Payload: []byte(`{"proposals":[{"ID":"p","Text":"wider","Mechanism":"architecture","Edits":{"width":"64"},"Patch":""}]}`)}, nil
}
func (instantLLM) Update(context.Context, *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return nil, plugins.ErrUnsupported
}
