package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
)

// compileImport compiles HCL src as the file dir/spec.hcl, with
// repositories and imports checked as the command line checks them.
func compileImport(t *testing.T, dir, src string) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	s, ds := hcl.Load(filepath.Join(dir, "spec.hcl"), []byte(src), hcl.Options{})
	if ds.HasErrors() {
		t.Fatalf("does not load:\n%s", ds.Format(0))
	}
	p, cds := Compile(s, Options{CheckRepository: gitrepo.Check, CheckImport: func(d string, ex []string, over string) error {
		return gitrepo.CheckImport(gitrepo.ImportSource{Dir: d, Exclude: ex, Overlay: over})
	}})
	return p, append(ds, cds...)
}

// A source with an import block takes a plain directory, which without it
// is refused; the plan holds its exclusions and its overlay, absolute.
func TestSourceImport(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"plain/main.go", "over/go.mod"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := readBase(t)
	block := "  source {\n    repository = \"plain\"\n    editable = [\"*.go\"]\n%s  }\n  task \"t1\" {"
	src, _ := mutate(t, base, `  task "t1" {`, strings.Replace(block, "%s", "", 1))
	if _, ds := compileImport(t, dir, src); !hasCode(ds, CodeSourceRepo) {
		t.Fatalf("a plain directory without import: want %s, got\n%s", CodeSourceRepo, ds.Format(0))
	}
	imp := "    import {\n      exclude = [\"*_test.go\"]\n      overlay = \"over\"\n    }\n"
	src, _ = mutate(t, base, `  task "t1" {`, strings.Replace(block, "%s", imp, 1))
	p, ds := compileImport(t, dir, src)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	var got *plan.Source
	for _, e := range p.Variants[0].Envs {
		for _, tk := range e.Tasks {
			if tk.Name == "t1" {
				got = tk.Source
			}
		}
	}
	if got == nil || got.Import == nil || got.Repository != filepath.Join(dir, "plain") || got.Revision != "" ||
		strings.Join(got.Import.Exclude, ",") != "*_test.go" || got.Import.Overlay != filepath.Join(dir, "over") {
		t.Fatalf("source %+v, import %+v", got, got.Import)
	}
}

// validate refuses at a position what an import cannot take, as run does.
func TestSourceImportErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(plain, "out")); err != nil {
		t.Fatal(err)
	}
	base := readBase(t)
	tests := []struct {
		name, block, code, msg string
		line                   int
	}{
		{"symlink out", "import {}", CodeSourceImport, "absolute path", 3},
		{"revision", "revision = \"HEAD\"\n    import {}", CodeConflict, "the source is imported", 3},
		{"bad exclude", "import {\n      exclude = [\"../x\"]\n    }", CodeSource, "leaves the repository", 4},
		{"empty overlay", "import {\n      overlay = \"\"\n    }", CodeSource, "overlay is empty", 4},
		{"missing overlay", "import {\n      exclude = [\"out\"]\n      overlay = \"nowhere\"\n    }", CodeSourceImport, "nowhere", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, line := mutate(t, base, `  task "t1" {`, "  source {\n    repository = \"plain\"\n    editable = [\"*.go\"]\n    "+tc.block+"\n  }\n  task \"t1\" {")
			_, ds := compileImport(t, dir, src)
			for _, d := range ds {
				if d.Code == tc.code && strings.Contains(d.Summary, tc.msg) {
					if d.Range.Start.Line != line+tc.line {
						t.Fatalf("%s at line %d, want %d", d.Summary, d.Range.Start.Line, line+tc.line)
					}
					return
				}
			}
			t.Fatalf("want %s %q, got:\n%s", tc.code, tc.msg, ds.Format(0))
		})
	}
}

// Every import field changes the plan.
func init() {
	values := map[string][2]string{
		"exclude": {`["*_test.go"]`, `["data"]`},
		"overlay": {`"a"`, `"b"`},
	}
	for field, v := range values {
		specialFields["environment.*.source.import."+field] = proveImportField(field, v)
		specialFields["environment.*.task.*.source.import."+field] = proveImportField(field, v)
	}
}

func proveImportField(field string, v [2]string) func(t *testing.T) {
	return func(t *testing.T) {
		var hashes []string
		for _, val := range v {
			src, _ := mutate(t, readBase(t), `  task "t1" {`, "  source {\n    repository = \"seed\"\n    editable = [\"*.go\"]\n    import {\n      "+field+" = "+val+"\n    }\n  }\n  task \"t1\" {")
			p, ds := compileSource(t, "base.hcl", []byte(src))
			if ds.HasErrors() {
				t.Fatalf("%s = %s: %s", field, val, ds.Format(0))
			}
			hashes = append(hashes, p.Hash)
		}
		if hashes[0] == hashes[1] {
			t.Fatalf("source.import.%s = %s and = %s give the same plan", field, v[0], v[1])
		}
	}
}
