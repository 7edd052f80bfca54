package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// fieldBase is a spec the field tests change, with what every field's
// subtest reads of it (made once: none of it is written after).
type fieldBase struct {
	name  string
	s     *spec.Spec
	hash  string
	eff   *spec.Spec      // effective(s)
	swept map[string]bool // swept(s)
	insts []attrInst      // attrInsts(s)
}

var basesOnce struct {
	once  sync.Once
	bases []fieldBase
	err   error
}

// fieldBases loads and compiles the bases once per test binary; the field
// subtests and the proofs only read them (each change is to a clone).
func fieldBases(t *testing.T) []fieldBase {
	t.Helper()
	basesOnce.once.Do(func() { basesOnce.bases, basesOnce.err = loadFieldBases() })
	if basesOnce.err != nil {
		t.Fatal(basesOnce.err)
	}
	return basesOnce.bases
}

func loadFieldBases() ([]fieldBase, error) {
	files, _ := filepath.Glob("../specs/*.hcl")
	if len(files) == 0 {
		return nil, fmt.Errorf("no specs in ../specs")
	}
	var out []fieldBase
	for _, f := range files {
		s, _, ds := load.Load(f, load.Options{})
		if ds.HasErrors() {
			return nil, fmt.Errorf("%s does not load:\n%s", f, ds.Format(0))
		}
		out = append(out, fieldBase{name: filepath.Base(f), s: s})
	}
	src, err := os.ReadFile("testdata/base.hcl")
	if err != nil {
		return nil, err
	}
	s, ds := hcl.Load("testdata/base.hcl", src, hcl.Options{})
	if ds.HasErrors() {
		return nil, fmt.Errorf("%s", ds.Format(0))
	}
	out = append(out, fieldBase{name: "base.hcl", s: s})
	for i := range out {
		b := &out[i]
		p, ds := Compile(b.s, Options{})
		if ds.HasErrors() {
			return nil, fmt.Errorf("%s does not compile:\n%s", b.name, ds.Format(0))
		}
		b.hash, b.eff, b.swept, b.insts = p.Hash, effective(b.s), swept(b.s), attrInsts(b.s)
	}
	return out, nil
}
