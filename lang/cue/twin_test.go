package cue

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"assay/compiler"
	"assay/lang/hcl"
	"assay/lang/spec"
)

// twins are CUE specs that say the same as an HCL spec.
var twins = []string{"lm2lm", "critic-grpo"}

// TestTwinsMatchHCL checks that each CUE twin gives the same spec tree and
// the same plan hash as its HCL original.
func TestTwinsMatchHCL(t *testing.T) {
	for _, name := range twins {
		t.Run(name, func(t *testing.T) {
			cs, ds := LoadFile("../../specs/"+name+".cue", Options{})
			if ds.HasErrors() {
				t.Fatalf("CUE: %s", ds.Format(0))
			}
			hs, ds := hcl.LoadFile("../../specs/"+name+".hcl", hcl.Options{})
			if ds.HasErrors() {
				t.Fatalf("HCL: %s", ds.Format(0))
			}
			if d := cmp.Diff(spec.Tree(hs), spec.Tree(cs)); d != "" {
				t.Fatalf("spec trees differ (-hcl +cue):\n%s", d)
			}
			cp, ds := compiler.Compile(cs, compiler.Options{})
			if ds.HasErrors() {
				t.Fatalf("compile CUE: %s", ds.Format(0))
			}
			hp, ds := compiler.Compile(hs, compiler.Options{})
			if ds.HasErrors() {
				t.Fatalf("compile HCL: %s", ds.Format(0))
			}
			if cp.Hash != hp.Hash {
				t.Fatalf("plan hashes differ: cue %s, hcl %s", cp.Hash, hp.Hash)
			}
		})
	}
}
