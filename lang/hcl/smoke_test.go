package hcl

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"assay/lang/spec"
)

func TestSmoke(t *testing.T) {
	files, _ := filepath.Glob("../../specs/*.hcl")
	for _, f := range files {
		s, d := LoadFile(f, Options{})
		if len(d) > 0 {
			t.Errorf("%s: %s", f, d.Format(0))
			continue
		}
		if testing.Verbose() && filepath.Base(f) == "lm2lm.hcl" {
			b, _ := json.MarshalIndent(spec.Tree(s), "", " ")
			t.Log(string(b))
		}
	}
}
