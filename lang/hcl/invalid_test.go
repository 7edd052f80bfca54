package hcl

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// marker is an expected diagnostic: `# ERROR: CODE summary substring`.
type marker struct {
	line    int
	code    string
	summary string
	matched bool
}

var markerRE = regexp.MustCompile(`#\s*ERROR:\s*(E_[A-Z_]+)\s+(.*)$`)

func readMarkers(t *testing.T, src []byte) []*marker {
	t.Helper()
	var out []*marker
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		if m := markerRE.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, &marker{line: n, code: m[1], summary: strings.TrimSpace(m[2])})
		}
	}
	return out
}

// TestInvalid loads each testdata/invalid file and checks, line by line, that
// every diagnostic is announced by a marker on its line and every marker is
// met. The whole rendered output is also compared with a golden file.
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
			markers := readMarkers(t, src)
			if len(markers) == 0 {
				t.Fatal("file has no ERROR markers")
			}
			_, ds := Load(file, src, Options{})
			for _, d := range ds {
				if !d.Range.Valid() || d.Range.Filename != file {
					t.Errorf("diagnostic without a range in the file: %s", d)
					continue
				}
				found := false
				for _, m := range markers {
					if m.line == d.Range.Start.Line && m.code == d.Code && strings.Contains(d.Summary, m.summary) {
						m.matched, found = true, true
					}
				}
				if !found {
					t.Errorf("unexpected diagnostic at line %d: %s", d.Range.Start.Line, d)
				}
			}
			for _, m := range markers {
				if !m.matched {
					t.Errorf("line %d: expected %s %q, got none", m.line, m.code, m.summary)
				}
			}
			ds.Annotate(map[string][]byte{file: src})
			checkGolden(t, strings.TrimSuffix(file, ".hcl")+".golden", []byte(ds.Format(100)))
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
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
		t.Errorf("output differs from %s (run go test -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

var _ = diag.Error
