package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadPicksFrontEnd(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		path string
		code string // "" means it must load through the HCL front end
		msg  string
	}{
		{filepath.Join("..", "..", "specs", "lm2lm.hcl"), "", ""},
		{write("x.toml", "a = 1"), "E_SPEC_FORMAT", "cannot tell the spec language"},
		{filepath.Join(dir, "missing.hcl"), "E_FILE_READ", "cannot read spec"},
		{write("bad.hcl", "environment {"), "E_SYNTAX", ""},
	}
	for _, tc := range tests {
		s, src, diags := Load(tc.path, Options{})
		if tc.code == "" {
			if diags.HasErrors() || s == nil {
				t.Errorf("Load(%s): %v", tc.path, diags)
			}
			if len(src[tc.path]) == 0 {
				t.Errorf("Load(%s): source not returned", tc.path)
			}
			continue
		}
		if len(diags) == 0 || diags[0].Code != tc.code || !strings.Contains(diags[0].Summary, tc.msg) {
			t.Errorf("Load(%s) = %v, want %s %q", tc.path, diags, tc.code, tc.msg)
		}
	}
}
