package rehearse

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"assay/compiler"
	"assay/compiler/plan"
	"assay/lang/load"
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
	sort.Strings(out)
	return out
}

// TestEverySpecRehearsesWithinItsEstimate rehearses every variant of every
// spec of specs/ with a few world seeds, one of them interrupted and
// resumed, and fails on a cap exceeded or a figure outside the estimate's
// [low, high].
func TestEverySpecRehearsesWithinItsEstimate(t *testing.T) {
	only := os.Getenv("ASSAY_REHEARSE_SPEC") // while debugging one spec
	for _, path := range specFiles(t) {
		name := filepath.Base(path)
		if only != "" && name != only {
			continue
		}
		t.Run(name, func(t *testing.T) {
			p := compileSpec(t, path, smaller[name]...)
			for _, v := range p.Variants {
				for _, interrupt := range []bool{false, true} {
					runs := 2
					if interrupt {
						runs = 1
					}
					rep, err := Rehearse(context.Background(), p, Options{Variant: v.Name, Runs: runs, Seed: 1, Interrupt: interrupt, Dir: t.TempDir()})
					if err != nil {
						t.Fatalf("variant %s: %v", v.Name, err)
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
