package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/features/runcompare"
	"github.com/assay-lang/assay/runtime"
)

const specsDir = "../../specs/laptop"

// notArms are the laptop specs that reproduce no paper's table, and the
// test that runs each instead.
var notArms = map[string]string{
	"suite.hcl": "the example task suite's spec; internal/contract's TestSuiteSpecRunsWithinItsEstimate runs it",
}

// TestExperimentsCompile: every arm of every experiment names a laptop
// spec that compiles, and a variant it has; every laptop spec is some
// experiment's arm.
func TestExperimentsCompile(t *testing.T) {
	used := map[string]bool{}
	for _, e := range experiments {
		for _, a := range e.Arms {
			p, err := compileSpec(filepath.Join(specsDir, a.Spec), 0)
			if err != nil {
				t.Fatalf("%s: %v", a.Spec, err)
			}
			if _, err := p.VariantIndex(a.Variant); err != nil {
				t.Errorf("%s: %v", a.Spec, err)
			}
			used[a.Spec] = true
		}
		if e.Pairs != nil {
			if _, err := compileSpec(filepath.Join(specsDir, e.Pairs.Spec), 0); err != nil {
				t.Fatalf("%s: %v", e.Pairs.Spec, err)
			}
			used[e.Pairs.Spec] = true
		}
	}
	files, _ := filepath.Glob(filepath.Join(specsDir, "*.hcl"))
	code, _ := filepath.Glob(filepath.Join(specsDir, "code", "*.hcl"))
	if len(files) == 0 || len(code) == 0 {
		t.Fatal("no laptop specs")
	}
	for _, f := range append(files, code...) {
		name, _ := filepath.Rel(specsDir, f)
		name = filepath.ToSlash(name)
		if why, ok := notArms[name]; ok {
			if used[name] {
				t.Errorf("%s is an arm, yet listed in notArms (%s)", f, why)
			}
			continue
		}
		if !used[name] {
			t.Errorf("%s is in no experiment", f)
		}
	}
}

// TestArmRunsWithinItsEstimate runs arms of each kind for real, with short
// tinylm runs (an evaluation with Base, in-context and world-model figures;
// a screened loop that spends its budget before an evaluation; evolution
// with and without a critic), checks each stays within its estimate, and
// reads its figures.
func TestArmRunsWithinItsEstimate(t *testing.T) {
	for _, name := range []string{"lm2lm-top-rated.hcl", "critic-grpo.hcl", "openevolve.hcl", "critic-evolve.hcl", "critic-grpo-audit.hcl", "critic-static.hcl", "critic-untrained.hcl", "code/critic-only.hcl", "critic-only-steps.hcl"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			armWithinEstimate(t, name)
		})
	}
}

func armWithinEstimate(t *testing.T, name string) {
	p, err := compileSpec(filepath.Join(specsDir, name), 20)
	if err != nil {
		t.Fatal(err)
	}
	// A loss over 512 validation positions, not 4,096: most of a 20-step
	// run's CPU, and no count under test depends on it.
	for _, v := range p.Variants {
		for _, pl := range v.Plugins {
			if pl.Source == "builtin:tinylm" {
				pl.Config["eval_positions"] = 512
			}
		}
	}
	dir := t.TempDir()
	r, err := runtime.Run(context.Background(), p, runtime.Options{ID: "a", Dir: dir, Plugins: loader()})
	if err != nil || r.State != runtime.StateFinished {
		t.Fatalf("%s: %v %+v", name, err, r)
	}
	for _, row := range runcompare.Rows(p, "", &r.Totals) {
		if !row.Within && !strings.HasSuffix(row.Figure, "routed_share") {
			t.Errorf("%s: %s = %g outside [%g, %g]", name, row.Figure, row.Measured, row.Low, row.High)
		}
	}
	f, err := figures(dir, "a", p.Variants[0], r)
	if err != nil {
		t.Fatal(err)
	}
	if c := map[string]string{"critic-static.hcl": "ladder", "critic-untrained.hcl": "screen"}[name]; c != "" {
		if err := criticFigures(dir, "a", c, f); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{
		"lm2lm-top-rated.hcl": {"avg", "best", "beats_base", "base_avg", "icl_avg", "rwm_rank", "rwm_cos"},
		"critic-grpo.hcl":     {"avg", "beats_base", "auroc", "routed", "train_runs"},
		"openevolve.hcl":      {"final_best"},
		"critic-evolve.hcl":   {"final_best", "auroc"},
		// Audited, the error recall is measured below 1 or at it.
		"critic-grpo-audit.hcl": {"avg", "auroc", "recall", "train_runs"},
		"critic-static.hcl":     {"ce_acc", "ce_dir3", "ce_f1", "ce_ladder5", "ce_auroc", "ce_routed", "ce_auroc_k1", "ce_auroc_k4", "ce_auroc_k8"},
		"critic-untrained.hcl":  {"ce_acc", "ce_dir3", "ce_f1", "ce_auroc_k1", "ce_auroc_k8"},
		// A code twin: real runs of patches of the example suite.
		"code/critic-only.hcl": {"avg", "beats_base", "base_avg"},
		// The step sweep's first variant trains 2 steps on critic votes alone.
		"critic-only-steps.hcl": {"avg", "beats_base", "base_avg", "steps"},
	}[name]
	for _, k := range want {
		if _, ok := f[k]; !ok {
			t.Errorf("%s: no %s in %v", name, k, f)
		}
	}
	if name == "critic-only-steps.hcl" && (f["steps"] != 2 || r.Totals.Measured.Loops["policy"] == nil) {
		t.Errorf("%s: the first variant ran %v steps, want 2", name, f["steps"])
	}
	if _, ok := f["auroc"]; ok && name == "openevolve.hcl" {
		t.Errorf("%s: critic figures without a critic: %v", name, f)
	}
	// The screened loop leaves the evaluation every run it was given.
	if (name == "critic-grpo.hcl" || name == "critic-grpo-audit.hcl") && f["train_runs"] > 48 {
		t.Errorf("%s: the loop took %v real runs of the 48 it has", name, f["train_runs"])
	}
}

func TestCell(t *testing.T) {
	runs := []map[string]float64{{"x": 1}, {"x": 2}, {"x": 3}, {}}
	if got := cell(runs, "x"); got != "2 ± 1" {
		t.Errorf("cell = %q", got)
	}
	if got := cell(runs[:1], "x"); got != "1" {
		t.Errorf("one seed: %q", got)
	}
	if got := cell(runs, "y"); got != "–" {
		t.Errorf("missing: %q", got)
	}
}

func TestWriteGeneratedKeepsTheText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.md")
	if err := writeGenerated(path, "first\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	doc := "# Title\n\nbefore\n\n" + string(b[strings.Index(string(b), beginMark):]) + "\nafter\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeGenerated(path, "second\n"); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	got := string(b)
	if strings.Contains(got, "first") || !strings.Contains(got, "second") || !strings.HasPrefix(got, "# Title\n\nbefore\n") || !strings.HasSuffix(got, "after\n") {
		t.Errorf("rewritten:\n%s", got)
	}
}

// oldCell is cell as it computed mean and spread itself before the shared
// statistics: the shared code must give the same text on the same seeds.
func oldCell(xs []float64) string {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) == 1 {
		return fmt.Sprintf("%.3g", mean)
	}
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return fmt.Sprintf("%.3g ± %.2g", mean, math.Sqrt(v/float64(len(xs)-1)))
}

func TestCellAsBefore(t *testing.T) {
	for _, xs := range [][]float64{
		{0.1706, 0.1084, 0.1476}, {-2.4, 1.2}, {19.57, 25.21, 18.75}, {0.363}, {0.5, 0.5, 0.5},
		{1e-4, 3e-4, -2e-4}, {1234.5, 987.25, 1500, 1100.125, 1333},
	} {
		runs := make([]map[string]float64, len(xs))
		for i, x := range xs {
			runs[i] = map[string]float64{"x": x}
		}
		if got, want := cell(runs, "x"), oldCell(xs); got != want {
			t.Errorf("%v: %q, before %q", xs, got, want)
		}
	}
}

// TestSpliceKeepsTheOtherTables: -only replaces the tables of the
// experiments it ran, noting how, and keeps the section's head and every
// other table as they were, in the experiments' order; a table whose
// experiment is gone is dropped.
func TestSpliceKeepsTheOtherTables(t *testing.T) {
	a, b := experiments[0], experiments[1]
	old := "before\n" + beginMark + "\nhead line\n\n### " + a.Title + "\n\nold A\n\n### gone\n\nold G\n\n### " + b.Title + "\n\nold B\n" + endMark + "\nafter\n"
	res := &experimentResult{experiment: b, Runs: make([][]map[string]float64, len(b.Arms))}
	got, ok := spliceTables(old, []*experimentResult{res}, "x", 3, time.Second, time.Second, "m")
	if !ok {
		t.Fatal("no section found")
	}
	if !strings.HasPrefix(got, "head line\n\n### "+a.Title+"\n\nold A\n") || strings.Contains(got, "old B") || strings.Contains(got, "gone") {
		t.Fatalf("spliced:\n%s", got)
	}
	if !strings.Contains(got, "### "+b.Title+"\n\nPapers: ") || !strings.Contains(got, "rerun alone (`go run ./internal/reproduce -only \"x\"`, 3 seeds per arm)") {
		t.Fatalf("the rerun table is missing or unnoted:\n%s", got)
	}
	if _, ok := spliceTables("no markers", nil, "x", 3, 0, 0, "m"); ok {
		t.Fatal("spliced into a file with no section")
	}
}
