package rehearse

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
)

func compileSpec(t testing.TB, path string, vars ...string) *plan.Plan {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{Vars: vars})
	if ds.HasErrors() {
		t.Fatalf("%s: %v", path, ds.Err())
	}
	p, cds := compiler.Compile(s, compiler.Options{})
	if cds.HasErrors() {
		t.Fatalf("%s: %v", path, cds.Err())
	}
	return p
}

// smaller are the variables that shrink the largest specs for this test
// (the same plan shape, fewer steps or votes); the benchmarks rehearse
// them at full scale.
var smaller = map[string][]string{
	"critic-grpo.hcl":            {"verifications=400"},
	"critic-grpo.cue":            {"verifications=400"},
	"critic-grpo-verify-all.hcl": {"verifications=400"},
	"critic-sweep.hcl":           {"verifications=300"},
	"critic-evolve.hcl":          {"votes=2"},
	"screen-base-35b.hcl":        {"votes=2"},
	"screen-base-9b.hcl":         {"votes=2"},
	"screen-critic-35b.hcl":      {"votes=2"},
	"screen-critic-9b.hcl":       {"votes=2"},
	"screen-gemini-flash.hcl":    {"votes=2"},
	"screen-gemini-pro.hcl":      {"votes=2"},
	"critic-train.hcl":           {"votes=2", "examples=200", "grpo_steps=5", "bench_pairs=40", "bench_k=[1,2]"},
	"critic-continual.hcl":       {"votes=2", "examples=200", "grpo_steps=5", "bench_pairs=40", "bench_k=[1,2]"},
}

// sampleSmaller shrinks more specs in a plain `go test`; with
// ASSAY_REHEARSE_ALL=1 (CI) they rehearse as written. The lm2lm specs
// take 72 of their 96 DAPO steps: every calibration round (after 16, 40,
// 64) still comes, with 9 rollout refreshes of 12.
var sampleSmaller = map[string][]string{
	"lm2lm.hcl":                    {"steps=72"},
	"lm2lm.cue":                    {"steps=72"},
	"lm2lm-eval.hcl":               {"steps=72"},
	"lm2lm-calibration-none.hcl":   {"steps=72"},
	"lm2lm-calibration-random.hcl": {"steps=72"},
}

// varsOf are the variables a spec is rehearsed with in this test.
func varsOf(name string) []string {
	if os.Getenv("ASSAY_REHEARSE_ALL") == "1" {
		return smaller[name]
	}
	return slices.Concat(smaller[name], sampleSmaller[name])
}

// specFiles are every spec of specs/.
func specFiles(t testing.TB) []string {
	dir, err := filepath.Abs("../../specs")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".hcl") || strings.HasSuffix(e.Name(), ".cue") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	// The code-change laptop twins, rehearsed with their builds simulated.
	twins, _ := filepath.Glob(filepath.Join(dir, "laptop", "code", "*.hcl"))
	out = append(out, twins...)
	sort.Strings(out)
	return out
}

// specName is a spec's name in this test: its file name, and a code
// twin's under laptop/code/ (critic-grpo.hcl is both a full-scale spec
// and a twin).
func specName(path string) string {
	if filepath.Base(filepath.Dir(path)) == "code" {
		return "laptop/code/" + filepath.Base(path)
	}
	return filepath.Base(path)
}

// TestSourceModeRehearsesSimulated: a source-mode spec (the verify-all
// code twin, which imports examples/suite) rehearses with its builds
// simulated, inside its estimate, with no import, worktree or build.
func TestSourceModeRehearsesSimulated(t *testing.T) {
	p := compileSpec(t, "../../specs/laptop/code/verify-all.hcl")
	dir := t.TempDir()
	rep, err := Rehearse(context.Background(), p, Options{Runs: 1, Seed: 1, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rh := rep.Rehearsals[0]; rh.State != "finished" || rh.Totals.RealRuns == 0 {
		t.Fatalf("state %s (%s), %d real runs: want a finished rehearsal with real runs", rh.State, rh.Reason, rh.Totals.RealRuns)
	}
	for _, f := range rep.Outside() {
		t.Errorf("%s over the rehearsal [%g, %g], outside the estimate's [%g, %g]", f.Name, f.Min, f.Max, f.Estimate.Low, f.Estimate.High)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*", ".imports")); len(m) > 0 {
		t.Errorf("the rehearsal imported the suite: %v", m)
	}
	for _, tk := range p.Variants[0].Envs[0].Tasks {
		if tk.Source == nil {
			t.Fatalf("the rehearsal changed the plan it was given: task %s lost its source", tk.Name)
		}
	}
}

// sampleSize is how many specs TestEverySpecRehearsesWithinItsEstimate
// rehearses in a plain `go test`; ASSAY_REHEARSE_ALL=1 (set by .ci/run)
// rehearses them all.
const sampleSize = 4

// sampleSpecs is rotation seed's sample of files: sampleSize files from
// seed*sampleSize on, wrapping, so consecutive seeds cover every file.
func sampleSpecs(files []string, seed int64) []string {
	n := int64(len(files))
	if n <= sampleSize {
		return files
	}
	var out []string
	for i := range int64(sampleSize) {
		out = append(out, files[((seed%n+n)%n*sampleSize+i)%n])
	}
	return out
}

// rehearsedSpecs are the specs this run rehearses: all with
// ASSAY_REHEARSE_ALL=1, else a rotating sample (ASSAY_REHEARSE_SEED, by
// default the day's number), logged with how to rehearse it again.
func rehearsedSpecs(t *testing.T) []string {
	files := specFiles(t)
	if os.Getenv("ASSAY_REHEARSE_ALL") == "1" {
		return files
	}
	seed := time.Now().Unix() / 86400
	if s := os.Getenv("ASSAY_REHEARSE_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("ASSAY_REHEARSE_SEED=%q: %v", s, err)
		}
	}
	out := sampleSpecs(files, seed)
	names := make([]string, len(out))
	for i, f := range out {
		names[i] = specName(f)
	}
	t.Logf("rehearsing %d of %d specs (sample %d): %s; the same again: ASSAY_REHEARSE_SEED=%d go test -run %s ./features/rehearse; all: ASSAY_REHEARSE_ALL=1",
		len(out), len(files), seed, strings.Join(names, ", "), seed, t.Name())
	return out
}

// TestEverySpecRehearsesWithinItsEstimate rehearses every variant of the
// specs of specs/ (a sample, see rehearsedSpecs) with a few world seeds,
// one of them interrupted and resumed, and fails on a cap exceeded or a
// figure outside the estimate's [low, high].
func TestEverySpecRehearsesWithinItsEstimate(t *testing.T) {
	only := os.Getenv("ASSAY_REHEARSE_SPEC") // while debugging one spec
	specs := rehearsedSpecs(t)
	if only != "" {
		specs = specFiles(t)
	}
	for _, path := range specs {
		name := specName(path)
		if only != "" && name != only {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := compileSpec(t, path, varsOf(name)...)
			for vi, v := range p.Variants {
				// World seed 1 plain; world seed 2 interrupted at a random
				// call or run and resumed (on the first variant of a sweep).
				for _, interrupt := range []bool{false, true} {
					if interrupt && vi > 0 {
						continue
					}
					seed := int64(1)
					if interrupt {
						seed = 2
					}
					rep, err := Rehearse(context.Background(), p, Options{Variant: v.Name, Runs: 1, Seed: seed, Interrupt: interrupt})
					if err != nil {
						t.Fatalf("variant %s: %v", v.Name, err)
					}
					if interrupt && rep.Rehearsals[0].InterruptedAt == 0 {
						t.Errorf("variant %s: the rehearsal was never interrupted", v.Name)
					}
					for _, rh := range rep.Rehearsals {
						if rh.State != "finished" {
							t.Errorf("variant %s seed %d: state %s (%s)", v.Name, rh.Seed, rh.State, rh.Reason)
						}
						for _, c := range rh.CapsBroken {
							t.Errorf("variant %s seed %d: cap exceeded: %s", v.Name, rh.Seed, c)
						}
					}
					for _, f := range rep.Outside() {
						t.Errorf("variant %s (interrupt %v): %s over the rehearsals [%g, %g], outside the estimate's [%g, %g]", v.Name, interrupt, f.Name, f.Min, f.Max, f.Estimate.Low, f.Estimate.High)
					}
				}
			}
		})
	}
}

// TestOutsideTheAssumptionsIsFlagged: a world whose builds fail far more
// than the spec assumes puts real runs below the estimate's low, and the
// report says so (the check can fail).
func TestOutsideTheAssumptionsIsFlagged(t *testing.T) {
	p := compileSpec(t, "../../specs/quickstart-critic.hcl")
	wf, ds := ParseWorld("w.hcl", []byte(`role "implementer" { build_failures = 0.9 }`))
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	rep, err := Rehearse(context.Background(), p, Options{Runs: 1, Seed: 1, World: wf})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rep.Outside() {
		names = append(names, f.Name)
	}
	if !slices.Contains(names, "totals.real_runs") {
		t.Errorf("outside: %v; want totals.real_runs among them", names)
	}
}

// TestResumedRehearsalMatches: a rehearsal interrupted and resumed from
// its journal ends with the totals of an uninterrupted one, whether the
// journal is a file (--dir) or in memory (a temporary folder).
func TestResumedRehearsalMatches(t *testing.T) {
	p := compileSpec(t, "../../specs/quickstart-critic.hcl")
	var got []Rehearsal
	for _, keep := range []bool{true, false} {
		for _, interrupt := range []bool{false, true} {
			opts := Options{Runs: 1, Seed: 5, Interrupt: interrupt}
			if keep {
				opts.Dir = t.TempDir()
			}
			rep, err := Rehearse(context.Background(), p, opts)
			if err != nil {
				t.Fatal(err)
			}
			if interrupt && rep.Rehearsals[0].InterruptedAt == 0 {
				t.Fatalf("file journal %v: not interrupted", keep)
			}
			got = append(got, rep.Rehearsals[0])
		}
	}
	a := got[0]
	for i, b := range got[1:] {
		what := [...]string{"file journal, resumed", "memory journal", "memory journal, resumed"}[i]
		if d := cmp.Diff(a.Totals, b.Totals); d != "" {
			t.Errorf("%s: totals differ (-plain +%s):\n%s", what, what, d)
		}
		if math.Abs(a.WallHours-b.WallHours) > 1e-9 {
			t.Errorf("%s: wall hours %g, plain %g", what, b.WallHours, a.WallHours)
		}
	}
}

// TestSampleRotationCoversEverySpec: the sample is the same for the same
// seed, has sampleSize specs, and consecutive seeds rehearse every spec.
func TestSampleRotationCoversEverySpec(t *testing.T) {
	files := specFiles(t)
	if len(files) <= sampleSize {
		t.Skipf("only %d specs", len(files))
	}
	seen := map[string]bool{}
	for seed := int64(100); seed < 100+int64(len(files)); seed++ {
		a, b := sampleSpecs(files, seed), sampleSpecs(files, seed)
		if !slices.Equal(a, b) || len(a) != sampleSize {
			t.Fatalf("seed %d: samples %v and %v", seed, a, b)
		}
		for _, f := range a {
			seen[f] = true
		}
	}
	for _, f := range files {
		if !seen[f] {
			t.Errorf("%s is in no sample", filepath.Base(f))
		}
	}
	if got := sampleSpecs(files, -3); len(got) != sampleSize {
		t.Errorf("negative seed: %v", got)
	}
}
