package examples

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The embedded example is the repository's examples/suite, file for file.
func TestWriteExampleSuite(t *testing.T) {
	dir := t.TempDir()
	wrote, err := WriteExample("suite", dir)
	if err != nil {
		t.Fatal(err)
	}
	all, err := os.ReadDir("suite")
	if err != nil {
		t.Fatal(err)
	}
	var src []os.DirEntry
	for _, e := range all {
		if !strings.HasSuffix(e.Name(), "_test.go") {
			src = append(src, e)
		}
	}
	if len(wrote) != len(src)+1 || wrote[len(wrote)-1] != "go.mod" {
		t.Fatalf("wrote %v; examples/suite has %d files, and go.mod is added", wrote, len(src))
	}
	for _, e := range src {
		want, _ := os.ReadFile(filepath.Join("suite", e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from examples/suite (%v)", e.Name(), err)
		}
	}
	if _, err := WriteExample("suite", dir); err == nil {
		t.Error("writing over existing files succeeded")
	}
	if _, err := WriteExample("nope", t.TempDir()); err == nil {
		t.Error("an unknown example was written")
	}
}
