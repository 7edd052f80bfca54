package tree

import (
	"go/build"
	"testing"
)

// TestLeaf: the package imports nothing, so compiler/plan may import it and
// stay plain data.
func TestLeaf(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Imports) > 0 {
		t.Errorf("package tree imports %v; it must import nothing", p.Imports)
	}
}
