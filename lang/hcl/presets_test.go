package hcl

import (
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/stdlib"
)

// TestSpecsPresets checks that every example spec names known presets and
// that, once they are merged, every GPU type it runs on has a price (an
// environment with run_cost.gpus = 0 runs on none).
func TestSpecsPresets(t *testing.T) {
	for _, f := range specFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, ds := LoadFile(f, Options{})
			ds = ds.Append(stdlib.ApplyPresets(s))
			if len(ds) > 0 {
				t.Fatal(ds.Format(0))
			}
			for _, e := range s.Environments {
				if s.Extends.Set {
					break // the environment is completed by its base: compiling the spec checks its price
				}
				if e.RunCost.GPUs.Set && e.RunCost.GPUs.V == 0 {
					continue // CPU work: no GPU type, no GPU-hour
				}
				if g := e.RunCost.GPU.V; s.Prices == nil || s.Prices.GPU.V[g] <= 0 {
					t.Errorf("environment %s runs on %q, which has no price", e.Name, g)
				}
			}
			for _, r := range s.Roles {
				if r.Tokens == nil || r.Price == nil {
					t.Errorf("role %s lacks tokens or price", r.Name)
				}
			}
			for _, l := range s.Loops {
				// A spec that extends another may change one field of a
				// loop; the loop has its preset in the base.
				if !l.Kind.Set && !s.Extends.Set {
					t.Errorf("loop %s has no kind after presets", l.Name)
				}
			}
		})
	}
}
