package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/pairs"
)

// collection is how an experiment's arms get their labelled pairs: each
// seed runs Spec (a pair collection) with that seed, exports its pairs
// with the Holdout tasks held out, as `assay export pairs` does, and the
// arms' critic trainings and benches read that file in place of the one
// their specs name, so that the table is of pairs the run collected.
type collection struct {
	Spec    string
	Holdout []string
	// MinImproving is the filter whose figures the table shows (the
	// arms' own min_improving_children).
	MinImproving int
}

// collectPairs runs c's spec at seed s, writes its pairs to a file of
// dir and returns the file's path and the pool's figures: the parents
// and pairs before and after the filter, and the improving share of
// the pairs kept.
func collectPairs(c *collection, specs, dir string, s, trainSteps int, log io.Writer) (string, map[string]float64, error) {
	p, err := compileSpec(filepath.Join(specs, c.Spec), trainSteps)
	if err != nil {
		return "", nil, err
	}
	p.Variants[0].Seed = int64(s)
	id := fmt.Sprintf("pairs-%d", s)
	t0 := time.Now()
	r, err := runtime.Run(context.Background(), p, runtime.Options{ID: id, Dir: dir, Plugins: loader(), Variant: p.Variants[0].Name})
	if err != nil {
		return "", nil, fmt.Errorf("%s seed %d: %w", c.Spec, s, err)
	}
	if r.State != runtime.StateFinished {
		return "", nil, fmt.Errorf("%s seed %d: run %s: %s", c.Spec, s, r.State, r.Reason)
	}
	ps, _, err := pairs.Read(dir, []string{id})
	if err != nil {
		return "", nil, err
	}
	if err := pairs.Split(ps, c.Holdout, 0, int64(s)); err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", nil, err
	}
	if err := pairs.WriteJSONL(f, ps); err != nil {
		f.Close()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	fmt.Fprintf(log, "reproduce: %s, seed %d: %d real runs, %d pairs in %.1fs\n", c.Spec, s, r.Totals.RealRuns, len(ps), time.Since(t0).Seconds())
	return path, poolFigures(ps, c.MinImproving), nil
}

// poolFigures are a collection's pairs before and after the filter.
func poolFigures(ps []critic.Pair, min int) map[string]float64 {
	kept, f := critic.KeepParents(ps, min)
	improve := 0
	for _, p := range kept {
		if p.Label3 == critic.Improve {
			improve++
		}
	}
	out := map[string]float64{"pool_parents": float64(f.Parents), "pool_kept_parents": float64(f.KeptParents),
		"pool_pairs": float64(len(ps)), "pool_kept": float64(len(kept))}
	if len(kept) > 0 {
		out["pool_improve"] = float64(improve) / float64(len(kept))
	}
	return out
}

// usePairs points every critic training and bench of v at path.
func usePairs(v *plan.Variant, path string) {
	for _, ph := range v.Phases {
		if ph.CriticTraining != nil {
			ph.CriticTraining.Pairs = path
		}
		if ph.CriticEval != nil {
			ph.CriticEval.Data = path
		}
	}
}
