package loadtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
)

// CopySpec copies the spec at path and the files of its extends chain into
// dir and returns their new paths, the spec's first and then its bases' in
// the order lang/load lists them (spec.Spec.Files). The files keep their
// layout below the deepest folder that holds them all, so a base in
// specs/common stays one folder below the spec that extends it. A test then
// edits a copy (the spec, or the base that writes the value it changes) and
// loads the first path. The task-suite manifests of its environments are
// copied too, keeping the same layout.
func CopySpec(t testing.TB, path, dir string) []string {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() || s == nil {
		t.Fatalf("loading %s:\n%s", path, ds.Format(0))
	}
	var files []string
	for _, f := range s.Files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, abs)
	}
	// The task-suite manifests the environments name travel with them,
	// where the specs name them (a suite's criteria files are not copied).
	var manifests []string
	for _, e := range s.Environments {
		if e == nil || !e.Suite.Set {
			continue
		}
		m := e.Suite.V
		if !filepath.IsAbs(m) {
			m = filepath.Join(filepath.Dir(e.Suite.Range.Filename), m)
		}
		if abs, err := filepath.Abs(m); err == nil {
			manifests = append(manifests, abs)
		}
	}
	root := filepath.Dir(files[0])
	for _, f := range append(files[1:], manifests...) {
		for !within(root, f) {
			root = filepath.Dir(root)
		}
	}
	var out []string
	for i, f := range append(files, manifests...) {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, rel)
		copyPath(t, f, dst)
		if i < len(files) {
			out = append(out, dst)
		}
	}
	return out
}

// within reports whether path lies in the folder root.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// copyPath copies a file, or a CUE package folder's files, to dst.
func copyPath(t testing.TB, src, dst string) {
	t.Helper()
	info, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if info.IsDir() {
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				copyPath(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
			}
		}
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// CopyEdited copies the spec at path and its chain into dir (CopySpec) and
// replaces old with new in the one file of the chain that writes old, once;
// it returns the copy of the spec. The test fails when no file writes old,
// or one writes it twice, so a stale edit cannot pass silently.
func CopyEdited(t testing.TB, path, dir, old, new string) string {
	t.Helper()
	files := CopySpec(t, path, dir)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch strings.Count(string(b), old) {
		case 0:
			continue
		case 1:
			if err := os.WriteFile(f, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			return files[0]
		default:
			t.Fatalf("%s writes %q more than once", f, old)
		}
	}
	t.Fatalf("no file of %s's extends chain writes %q", path, old)
	return ""
}
