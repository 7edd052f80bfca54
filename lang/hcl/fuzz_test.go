package hcl

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// FuzzLoad checks that no input makes Load or Format panic or hang. The seed
// corpus runs as part of go test.
//
// Seeds are the top-level blocks of every spec and test file, one by one,
// not whole files, and inputs are at most maxFuzzInput bytes: the fuzzer
// minimizes each new interesting input by re-running it byte by byte for up
// to a minute, and on a whole spec that keeps every worker busy minimizing
// instead of fuzzing. Whole specs are loaded by the package's other tests.
func FuzzLoad(f *testing.F) {
	var files []string
	for _, g := range []string{"../../specs/*.hcl", "../../specs/laptop/code/common/*.hcl", "testdata/invalid/*.hcl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range topLevel(b) {
			f.Add(c)
		}
	}
	f.Add([]byte("dynamic \"role\" {\n for_each = [1]\n labels = [1]\n content {}\n}\n"))
	f.Add([]byte("locals {\n a = hours(\"1d1d\")\n b = spread(1e300, 1e300)\n}\n"))
	f.Add([]byte("locals {\n a = b\n b = local.c\n c = local.a\n d = local.x\n}\nname = local.d\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > maxFuzzInput {
			return
		}
		// A deadline well below the fuzzer's own hang detection, so a slow
		// input shows as E_TOO_COMPLEX rather than a hung worker.
		opts := Options{Vars: []string{"x=1"}, Timeout: time.Second}
		s, ds := Load("fuzz.hcl", src, opts)
		if s == nil && !ds.HasErrors() {
			t.Fatal("nil spec without errors")
		}
		if s != nil && !ds.HasErrors() {
			// A clean load must write and reload cleanly.
			if _, ds2 := Load("w.hcl", Write(s), Options{Timeout: time.Second}); ds2.HasErrors() {
				t.Fatalf("written spec does not load: %s", ds2.Format(0))
			}
		}
		Format("fuzz.hcl", src)
	})
}

// maxFuzzInput bounds the inputs the fuzzer explores. The mutator grows
// inputs to many kilobytes, and minimizing one that finds new coverage
// re-runs it once per byte; at 13 KB that kept both workers busy for a
// minute. Inputs past the bound return at once, so they never look new.
// Load's own size bounds are tested in limits_test.go.
const maxFuzzInput = 2048

// topLevel splits a file into the source of its top-level blocks and
// attributes; a file that does not parse is returned whole.
func topLevel(src []byte) [][]byte {
	f, hd := hclsyntax.ParseConfig(src, "seed.hcl", hcl.InitialPos)
	if hd.HasErrors() {
		return [][]byte{src}
	}
	body := f.Body.(*hclsyntax.Body)
	var out [][]byte
	for _, a := range body.Attributes {
		out = append(out, a.SrcRange.SliceBytes(src))
	}
	for _, b := range body.Blocks {
		out = append(out, b.Range().SliceBytes(src))
	}
	return out
}
