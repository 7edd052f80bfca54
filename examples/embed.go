package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// suite is examples/suite: the research scaffold (a Go MLP trainer) and
// its task-suite manifest.
//
//go:embed suite
var suite embed.FS

// Names are the examples WriteExample knows.
var Names = []string{"suite"}

// suiteGoMod makes the written suite a module of its own: in this
// repository it is a package of Assay's module, and a go.mod here would
// keep it out of that module and of go:embed.
const suiteGoMod = "module example.com/suite\n\ngo 1.22\n"

// WriteExample writes the files of the example name into dir, which must
// exist; it overwrites nothing and returns the paths it wrote, relative
// to dir.
func WriteExample(name, dir string) ([]string, error) {
	if name != "suite" {
		return nil, fmt.Errorf("no example %q; the examples are %v", name, Names)
	}
	root, err := fs.Sub(suite, name)
	if err != nil {
		return nil, err
	}
	var wrote []string
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		if strings.HasSuffix(p, "_test.go") {
			return nil // tests of the example against Assay's own module
		}
		to := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.Mkdir(to, 0o755)
		}
		b, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		wrote = append(wrote, p)
		return f.Close()
	})
	if err != nil {
		return wrote, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "go.mod"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return wrote, err
	}
	if _, err := f.WriteString(suiteGoMod); err != nil {
		f.Close()
		return wrote, err
	}
	return append(wrote, "go.mod"), f.Close()
}
