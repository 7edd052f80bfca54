package compiler

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/hcl"
)

// marker is an expected diagnostic: `# ERROR: CODE summary substring`
// (warnings use a W_ code).
type marker struct {
	line    int
	code    string
	summary string
	matched bool
}

var markerRE = regexp.MustCompile(`#\s*ERROR:\s*([EW]_[A-Z_]+)\s*(.*)$`)

func readMarkers(src []byte) []*marker {
	var out []*marker
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		if m := markerRE.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, &marker{line: n, code: m[1], summary: strings.TrimSpace(m[2])})
		}
	}
	return out
}

// TestInvalid compiles each testdata/invalid spec and checks, line by line,
// that every diagnostic is announced by a marker on its line and every
// marker is met; the rendered diagnostics are compared with a golden file.
func TestInvalid(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid specs: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			markers := readMarkers(src)
			s, lds := hcl.Load(file, src, hcl.Options{})
			if lds.HasErrors() {
				t.Fatalf("does not load:\n%s", lds.Format(0))
			}
			p, ds := Compile(s, Options{})
			if p != nil {
				t.Error("an invalid spec compiled to a plan")
			}
			for _, d := range ds {
				found := false
				for _, m := range markers {
					if m.line == d.Range.Start.Line && m.code == d.Code && strings.Contains(d.Summary+" "+d.Detail, m.summary) {
						m.matched, found = true, true
					}
				}
				if !found {
					t.Errorf("unexpected diagnostic: %v", d)
				}
			}
			for _, m := range markers {
				if !m.matched {
					t.Errorf("line %d: no %s diagnostic containing %q", m.line, m.code, m.summary)
				}
			}
			ds.Annotate(map[string][]byte{file: src})
			golden(t, strings.TrimSuffix(file, ".hcl")+".golden", []byte(ds.Format(100)))
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
