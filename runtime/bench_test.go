package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// instantTrainer finishes every run at Start.
type instantTrainer struct{}

func (instantTrainer) Describe(context.Context, *plugins.DescribeRequest) (*plugins.DescribeResponse, error) {
	return &plugins.DescribeResponse{}, nil
}
func (instantTrainer) Start(_ context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	return &plugins.RunHandle{RunID: req.RunID, Handle: req.RunID}, nil
}
func (instantTrainer) Wait(_ context.Context, h *plugins.RunHandle) (*plugins.RunResult, error) {
	return &plugins.RunResult{RunID: h.RunID, Status: plugins.StatusFinished, Metric: 1}, nil
}
func (instantTrainer) Cancel(context.Context, *plugins.RunHandle) error { return nil }

// BenchmarkRealRunOverhead is the runtime's own cost per real run, journal
// included (reservation, handle and result each durable before the next
// step acts on them), with a trainer that returns at once: 10,000 runs per
// iteration at the executor concurrency given in the name.
func BenchmarkRealRunOverhead(b *testing.B) {
	const n = 10000
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				p := lm2lmPlan()
				v := p.Variants[0]
				v.Executor.Concurrency = conc
				v.Budget.RealRuns = n
				dir := b.TempDir()
				j, err := journal.Open(filepath.Join(dir, "journal.db"))
				if err != nil {
					b.Fatal(err)
				}
				l := LoaderFunc(func(context.Context, *plan.Plugin) (Instance, error) { return &inst{t: instantTrainer{}}, nil })
				r := newService(context.Background(), v, j, dir, Options{Plugins: l, Retries: 2})
				task := &taskInfo{Env: "tiny", Name: "t0", Split: "train", Baseline: 1.5, Scale: 1, Minimize: true}
				runs := make([]realRun, n)
				for i := range runs {
					runs[i] = realRun{Key: fmt.Sprintf("bench/%d", i), Task: task, Proposal: plugins.Proposal{ID: "p", Edits: map[string]string{"width": "64"}}}
				}
				b.StartTimer()
				out, err := r.runReal(scope{}, runs)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if len(out) != n || r.n.finished != n {
					b.Fatalf("finished %d of %d", r.n.finished, n)
				}
				j.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/run")
		})
	}
}
