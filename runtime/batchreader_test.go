package runtime

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// sayingUpdater is an update trainer that says whether it reads the batch
// file (plugins.BatchReader) and records the batch file each update names.
type sayingUpdater struct {
	fakeUpdater
	reads   bool
	mu      sync.Mutex
	batches []string
}

func (s *sayingUpdater) ReadsBatch() bool { return s.reads }

func (s *sayingUpdater) Start(ctx context.Context, req *plugins.RunRequest) (*plugins.RunHandle, error) {
	s.mu.Lock()
	s.batches = append(s.batches, req.Update.BatchFile)
	s.mu.Unlock()
	if s.reads {
		return s.fakeUpdater.Start(ctx, req) // reads and checks every line
	}
	if err := os.MkdirAll(req.Update.AdapterDir, 0o755); err != nil {
		return nil, err
	}
	return &plugins.RunHandle{RunID: req.RunID, Handle: req.Update.AdapterDir}, nil
}

// A trainer that says it never reads the batch file gets none (none is
// written, none is named), one that says it reads it gets it whole, and
// the run's figures are the same either way.
func TestBatchFileOnlyForATrainerThatReadsIt(t *testing.T) {
	t.Parallel()
	run := func(id string, reads bool) (*Result, *sayingUpdater, []string) {
		p := lm2lmPlan()
		v := p.Variants[0]
		v.Plugins = append(v.Plugins, &plan.Plugin{Name: "rl", Kind: "trainer"})
		v.Loops[0].ZeroVariance = "keep"
		v.Loops[0].Update = &plan.PolicyUpdate{Trainer: "rl", GPU: "CPU", GPUs: 2, Hours: 0.5, GPUHours: 1, USD: 2, Adapter: "pol", Updates: plan.Exact(8)}
		up := &sayingUpdater{reads: reads}
		var mu sync.Mutex
		var loaded, used []string
		ld := loaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
			switch pl.Name {
			case "rl":
				return &inst{t: up}, nil
			case "trainer":
				return &inst{t: newFakeTrainer()}, nil
			}
			return &inst{l: servedLLM{mu: &mu, loaded: &loaded, used: &used}}, nil
		})
		dir := t.TempDir()
		res, err := runPlan(t, p, dir, id, ld, false)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "batch.jsonl" {
				files = append(files, path)
			}
			return nil
		})
		return res, up, files
	}
	withFile, reader, files := run("reads", true)
	if len(reader.batches) != 8 || len(files) != 8 {
		t.Fatalf("a trainer that reads the batch: %d updates named %d batch files, %d on disk; want 8 of each", len(reader.batches), len(reader.batches), len(files))
	}
	for i, b := range reader.batches {
		if b == "" || reader.lines[i] == 0 {
			t.Errorf("update %d: batch file %q with %d lines", i+1, b, reader.lines[i])
		}
	}
	without, blind, files := run("blind", false)
	if len(blind.batches) != 8 {
		t.Fatalf("a trainer that does not read the batch made %d updates, want 8", len(blind.batches))
	}
	for i, b := range blind.batches {
		if b != "" {
			t.Errorf("update %d named batch file %q to a trainer that never reads it", i+1, b)
		}
	}
	if len(files) != 0 {
		t.Errorf("batch files written for a trainer that never reads them: %v", files)
	}
	if d := cmp.Diff(withFile.Totals, without.Totals); d != "" {
		t.Errorf("the totals depend on whether the batch was written (-written +not):\n%s", d)
	}
}
