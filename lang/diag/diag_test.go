package diag

import (
	"strings"
	"testing"
)

// A diagnostic about a file that has no line (the file cannot be read)
// still names the file; one with a position gives file:line:col.
func TestFormatNamesTheFile(t *testing.T) {
	ds := Diagnostics{
		Errorf("E_FILE_READ", Range{Filename: "specs/nosuch.hcl"}, "cannot read spec: no such file or directory"),
		Errorf("E_X", Range{Filename: "a.hcl", Start: Pos{Line: 3, Column: 2}, End: Pos{Line: 3, Column: 4}}, "bad"),
		Errorf("E_Y", Range{}, "no file at all"),
	}
	lines := strings.Split(ds.Format(0), "\n")
	for i, want := range []string{
		"specs/nosuch.hcl: error[E_FILE_READ]: cannot read spec: no such file or directory",
		"a.hcl:3:2: error[E_X]: bad",
		"error[E_Y]: no file at all",
	} {
		found := false
		for _, l := range lines {
			if l == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%d: no line %q in\n%s", i, want, ds.Format(0))
		}
	}
}
