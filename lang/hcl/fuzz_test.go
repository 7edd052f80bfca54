package hcl

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad checks that no input makes Load or Format panic. The seed corpus
// (every spec and test file) runs as part of go test.
func FuzzLoad(f *testing.F) {
	var files []string
	for _, g := range []string{"../../specs/*.hcl", "testdata/invalid/*.hcl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("dynamic \"role\" {\n for_each = [1]\n labels = [1]\n content {}\n}\n"))
	f.Add([]byte("locals {\n a = hours(\"1d1d\")\n b = spread(1e300, 1e300)\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, ds := Load("fuzz.hcl", src, Options{Vars: []string{"x=1"}})
		if s == nil && !ds.HasErrors() {
			t.Fatal("nil spec without errors")
		}
		if s != nil && !ds.HasErrors() {
			// A clean load must write and reload cleanly.
			if _, ds2 := Load("w.hcl", Write(s), Options{}); ds2.HasErrors() {
				t.Fatalf("written spec does not load: %s", ds2.Format(0))
			}
		}
		Format("fuzz.hcl", src)
	})
}
