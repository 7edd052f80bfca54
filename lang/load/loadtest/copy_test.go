package loadtest

import (
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/lang/load"
)

// A copy of a spec whose chain reaches a shared base in another folder
// (critic-sweep.hcl -> critic-grpo.hcl -> common/critic-grpo.hcl ->
// common/mls-bench-lite.hcl) loads from the copy alone, its task-suite
// manifest with it, and plans as the original does.
func TestCopySpecPlansTheSame(t *testing.T) {
	orig := filepath.Join("..", "..", "..", "specs", "critic-sweep.hcl")
	dir := t.TempDir()
	got := CopySpec(t, orig, dir)
	want := []string{"critic-sweep.hcl", "critic-grpo.hcl", filepath.Join("common", "critic-grpo.hcl"), filepath.Join("common", "mls-bench-lite.hcl")}
	if len(got) != len(want) {
		t.Fatalf("copied %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i] != filepath.Join(dir, w) {
			t.Errorf("copy %d is %s, want %s", i, got[i], filepath.Join(dir, w))
		}
	}
	// The copy must not reach back to specs/.
	s, _, ds := load.Load(got[0], load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	for _, f := range s.Files {
		if abs, _ := filepath.Abs(f); !within(dir, abs) {
			t.Errorf("the copy loads %s, outside %s", f, dir)
		}
	}
	if hash(t, got[0]) != hash(t, orig) {
		t.Error("the copy plans differently from the original")
	}
}

func hash(t *testing.T, path string) string {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	p, cds := compiler.Compile(s, compiler.Options{})
	if cds.HasErrors() {
		t.Fatal(cds.Format(0))
	}
	return p.Hash
}
