package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/runtime"
)

// TestCollectedPairsFeedTheArms: an experiment with a pair collection
// runs the collection spec (here cut to 2 steps of 4 tasks and 4
// children), writes its pairs with the held-out task marked, reports the
// filter's figures of that file, and its arms' benches judge that file,
// not the one their spec names.
func TestCollectedPairsFeedTheArms(t *testing.T) {
	specs := t.TempDir()
	b, err := os.ReadFile(filepath.Join(specsDir, "critic-pairs.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.NewReplacer("rounds                  = 10", "rounds                  = 2", "children_per_parent     = 20", "children_per_parent     = 4").Replace(string(b))
	if err := os.MkdirAll(filepath.Join(specs, "common"), 0o755); err != nil {
		t.Fatal(err)
	}
	pre, err := os.ReadFile(filepath.Join(specsDir, "common", "preamble.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"critic-pairs.hcl": src, "common/preamble.hcl": string(pre)} {
		if err := os.WriteFile(filepath.Join(specs, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	c := &collection{Spec: "critic-pairs.hcl", Holdout: []string{"train-04"}, MinImproving: 2}
	path, figs, err := collectPairs(c, specs, dir, 1, 10, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := critic.ReadPairs(f)
	f.Close()
	if err != nil || len(ps) == 0 {
		t.Fatalf("%d pairs collected, %v", len(ps), err)
	}
	held := 0
	for _, p := range ps {
		if (p.Split == "holdout") != (p.Task == "train-04") {
			t.Fatalf("pair of %s in split %s", p.Task, p.Split)
		}
		if p.Split == "holdout" {
			held++
		}
	}
	kept, fl := critic.KeepParents(ps, 2)
	if figs["pool_pairs"] != float64(len(ps)) || figs["pool_kept"] != float64(len(kept)) || figs["pool_parents"] != float64(fl.Parents) || figs["pool_kept_parents"] != float64(fl.KeptParents) {
		t.Fatalf("figures %v, the file: %d pairs, %d kept, %+v", figs, len(ps), len(kept), fl)
	}
	p, err := compileSpec(filepath.Join(specsDir, "critic-untrained.hcl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	v := p.Variants[0]
	usePairs(v, path)
	for _, ph := range v.Phases {
		if ce := ph.CriticEval; ce != nil {
			// The cut collection holds fewer held-out pairs than the spec
			// benches.
			ce.Examples, ce.MinImproving = min(held, 4), 0
		}
	}
	if _, err := runtime.Run(context.Background(), p, runtime.Options{ID: "u", Dir: dir, Plugins: loader()}); err != nil {
		t.Fatal(err)
	}
	rep, err := runtime.LoadReport(dir, "u")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CriticEvals) != 1 || rep.CriticEvals[0].Data != path || rep.CriticEvals[0].Examples != min(held, 4) {
		t.Fatalf("the bench judged %+v, want the %d collected pairs of %s", rep.CriticEvals, min(held, 4), path)
	}
}
