package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins/host"
)

// The example specs' lock files are committed: every spec whose plugins
// are all built in has one, and every committed lock pins the plugins its
// spec declares for this Assay release, so `assay run specs/X` on a fresh
// clone starts exactly what the lock says and never rewrites it.
func TestSpecLocks(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join("..", "..", "specs", "*.hcl"))
	cues, _ := filepath.Glob(filepath.Join("..", "..", "specs", "*.cue"))
	// The code-change laptop twins, compiled here as validate compiles
	// them: their import of examples/suite checked.
	twins, _ := filepath.Glob(filepath.Join("..", "..", "specs", "laptop", "code", "*.hcl"))
	if len(twins) != 6 {
		t.Errorf("found %d code twins in specs/laptop/code, want 6", len(twins))
	}
	specs = append(append(specs, cues...), twins...)
	if len(specs) < 5 {
		t.Fatalf("found %d specs", len(specs))
	}
	for _, spec := range specs {
		p, diags, _ := compileSpec(spec, &specFlags{})
		if diags.HasErrors() {
			t.Errorf("%s: %v", spec, diags)
			continue
		}
		allBuiltin := true
		for _, s := range pluginSpecs(p) {
			allBuiltin = allBuiltin && strings.HasPrefix(s.Source, host.BuiltinPrefix)
		}
		path := host.LockPathFor(spec)
		if _, err := os.Stat(path); err != nil {
			if allBuiltin {
				t.Errorf("%s has only built-in plugins but no committed lock: run `assay init %s`", spec, spec)
			}
			continue
		}
		lock, err := host.ReadLock(path)
		if err == nil {
			err = host.Verify(lock, path, pluginSpecs(p))
		}
		if err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}
