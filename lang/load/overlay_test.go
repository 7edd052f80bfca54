package load

import (
	"path/filepath"
	"testing"
)

// TestOverlayReplacesDisk checks that unsaved content of a spec and of the
// base it extends is read instead of the files on disk, and that a spec
// that exists only in the overlay loads.
func TestOverlayReplacesDisk(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"base.hcl":  "name = \"base\"\nseed = 1\n",
		"child.hcl": "extends = \"base.hcl\"\nname = \"child\"\n",
	})
	base, child := filepath.Join(dir, "base.hcl"), filepath.Join(dir, "child.hcl")

	s, _ := mustLoad(t, child, Options{})
	if s.Seed.V != 1 {
		t.Fatalf("seed from disk = %d, want 1", s.Seed.V)
	}
	s, src := mustLoad(t, child, Options{Overlay: map[string][]byte{base: []byte("name = \"base\"\nseed = 7\n")}})
	if s.Seed.V != 7 {
		t.Errorf("seed with the base overlaid = %d, want 7", s.Seed.V)
	}
	if string(src[base]) != "name = \"base\"\nseed = 7\n" {
		t.Errorf("sources hold %q for the base, want the overlay", src[base])
	}

	// The unsaved text is checked: its error is reported at its position.
	_, _, ds := Load(child, Options{Overlay: map[string][]byte{child: []byte("extends = \"base.hcl\"\nseed = \"x\"\n")}})
	if !ds.HasErrors() || ds[0].Range.Filename != child || ds[0].Range.Start.Line != 2 {
		t.Errorf("overlay with a type error: got %v", ds)
	}

	// A file never saved loads from the overlay, CUE too.
	fresh := filepath.Join(dir, "fresh.cue")
	s, _ = mustLoad(t, fresh, Options{Overlay: map[string][]byte{fresh: []byte("extends: \"base.hcl\"\nseed: 3\n")}})
	if s.Seed.V != 3 || s.Name.V != "base" {
		t.Errorf("fresh CUE spec: seed %d name %q, want 3 and base", s.Seed.V, s.Name.V)
	}
}
