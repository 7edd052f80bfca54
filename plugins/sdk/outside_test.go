package sdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A plugin written outside the repository builds against the module path
// alone, as examples/plugin/README.md tells: its own module requires
// Assay's and points it at a checkout with a replace line. No download:
// the module cache already holds Assay's dependencies, and GOPROXY=off
// makes a missing one an error rather than a fetch.
func TestPluginOutsideTheRepositoryBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a separate module")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod)
	if m == nil || !strings.Contains(string(m[1]), ".") {
		t.Fatalf("go.mod's module path %q is not host-qualified: a plugin elsewhere could not require it", m)
	}
	module := string(m[1])
	src, err := os.ReadFile(filepath.Join(root, "examples/plugin/echotrainer/main.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The plugin's module requires Assay's and, to build offline, the same
	// versions of its dependencies (its go.sum is Assay's).
	reqs := regexp.MustCompile(`(?s)require \(.*?\)`).FindAll(gomod, -1)
	mod := "module example.com/my-trainer\n\ngo 1.26.0\n\nrequire " + module + " v0.0.0\n\n" +
		string(joinBytes(reqs)) + "\nreplace " + module + " => " + root + "\n"
	files := map[string][]byte{"go.mod": []byte(mod), "main.go": src}
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		files["go.sum"] = sum
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-mod=mod", "-o", filepath.Join(dir, "my-trainer"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of a plugin outside the repository: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "my-trainer")); err != nil {
		t.Fatal(err)
	}
}

func joinBytes(bs [][]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
		out = append(out, '\n')
	}
	return out
}
