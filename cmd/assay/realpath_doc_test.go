package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestRealPathDoc keeps docs/real-path.md and the script that runs its
// server-bound blocks (testdata/script/real_path.txtar) one: the spec the
// page shows is the script's real.hcl byte for byte, and every command of
// a block the page marks as run by the script is a command of the script.
func TestRealPathDoc(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	const script = "cmd/assay/testdata/script/real_path.txtar"
	ar, err := txtar.ParseFile(filepath.Join(root, script))
	if err != nil {
		t.Fatal(err)
	}
	var spec string
	for _, f := range ar.Files {
		if f.Name == "real.hcl" {
			spec = string(f.Data)
		}
	}
	if spec == "" {
		t.Fatalf("%s has no real.hcl", script)
	}
	lines := strings.Split(string(ar.Comment), "\n")
	blocks, err := readDocBlocks(filepath.Join(root, "docs", "real-path.md"), root)
	if err != nil {
		t.Fatal(err)
	}
	specs, cmds := 0, 0
	for _, b := range blocks {
		if f, ok := b.mark("fragment of"); ok && f == script {
			specs++
			if got := strings.Join(b.body, "\n") + "\n"; got != spec {
				t.Errorf("docs/real-path.md:%d: the spec differs from %s's real.hcl:\n%s", b.line, script, got)
			}
		}
		if r, ok := b.mark("not run:"); ok && r == "run by "+script {
			for _, l := range b.body {
				l = strings.TrimSpace(l)
				if l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				cmds++
				if !slices.Contains(lines, "exec "+l) && !slices.Contains(lines, l) {
					t.Errorf("docs/real-path.md:%d: %q is not a command of %s", b.line, l, script)
				}
			}
		}
	}
	if specs != 1 || cmds < 10 {
		t.Fatalf("docs/real-path.md shows %d specs and %d commands run by %s; want 1 and at least 10", specs, cmds, script)
	}
}
