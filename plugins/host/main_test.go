package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binaries built once for all tests: real plugin subprocesses.
var (
	moduleRoot    string
	testPluginBin string
	echoBin       string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "assay-host-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	wd, _ := os.Getwd()
	if moduleRoot, err = findModuleRoot("", wd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testPluginBin = filepath.Join(dir, "testplugin")
	echoBin = filepath.Join(dir, "echotrainer")
	for bin, pkg := range map[string]string{
		testPluginBin: "./plugins/host/internal/testplugin",
		echoBin:       "./examples/plugin/echotrainer",
	} {
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Dir = moduleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	return m.Run()
}

// copyBinary copies a test binary into dir so a test may change it.
func copyBinary(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}
