package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/lang/spec"
)

// compileHash compiles s and returns its plan hash, or the diagnostic codes
// when it does not compile, so two specs that fail the same way still
// compare equal and two that fail differently do not.
func compileHash(t *testing.T, s *spec.Spec) string {
	t.Helper()
	p, ds := compiler.Compile(s, compiler.Options{})
	if ds.HasErrors() {
		var codes []string
		for _, d := range ds.Errors() {
			codes = append(codes, d.Code)
		}
		return "errors:" + strings.Join(codes, ",")
	}
	return p.Hash
}

// TestCUETwinsMatchHCL checks that each CUE twin in specs/ gives the same
// spec tree and the same plan hash as its HCL original.
func TestCUETwinsMatchHCL(t *testing.T) {
	for _, name := range []string{"lm2lm", "critic-grpo"} {
		t.Run(name, func(t *testing.T) {
			cs, _, ds := Load("../../specs/"+name+".cue", Options{})
			if ds.HasErrors() {
				t.Fatalf("CUE: %s", ds.Format(0))
			}
			hs, _, ds := Load("../../specs/"+name+".hcl", Options{})
			if ds.HasErrors() {
				t.Fatalf("HCL: %s", ds.Format(0))
			}
			if d := cmp.Diff(spec.Tree(hs), spec.Tree(cs)); d != "" {
				t.Fatalf("spec trees differ (-hcl +cue):\n%s", d)
			}
			if h, c := compileHash(t, hs), compileHash(t, cs); h != c {
				t.Fatalf("plans differ: hcl %s, cue %s", h, c)
			}
		})
	}
}

// TestConvertRoundTrip converts every spec in specs/ to the other language
// and back, and checks the tree and the plan hash survive each step.
func TestConvertRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob("../../specs/*.hcl")
	cues, _ := filepath.Glob("../../specs/*.cue")
	paths = append(paths, cues...)
	if len(paths) == 0 {
		t.Fatal("no specs found")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			orig, _, ds := Load(path, Options{})
			if ds.HasErrors() {
				t.Fatalf("load: %s", ds.Format(0))
			}
			want, wantHash := spec.Tree(orig), compileHash(t, orig)
			other := ".cue"
			if filepath.Ext(path) == ".cue" {
				other = ".hcl"
			}
			dir := t.TempDir()
			placeSuites(t, orig, dir)
			cur := orig
			for i, ext := range []string{other, filepath.Ext(path)} {
				out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+string(rune('a'+i))+ext)
				b, ds := Write(cur, out)
				if ds.HasErrors() {
					t.Fatal(ds.Format(0))
				}
				if err := os.WriteFile(out, b, 0o644); err != nil {
					t.Fatal(err)
				}
				next, _, ds := Load(out, Options{})
				if ds.HasErrors() {
					t.Fatalf("reload %s: %s\n%s", ext, ds.Format(0), b)
				}
				if d := cmp.Diff(want, spec.Tree(next)); d != "" {
					t.Fatalf("tree changed through %s (-want +got):\n%s\n%s", ext, d, b)
				}
				if h := compileHash(t, next); h != wantHash {
					t.Fatalf("plan changed through %s: %s, want %s", ext, h, wantHash)
				}
				cur = next
			}
		})
	}
}
