package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/plugins/builtin"
)

// testLock is the lock file name the tests use, as for a spec "spec.hcl".
const testLock = "spec.hcl" + LockSuffix

// Binaries built once for all tests: real plugin subprocesses.
var (
	testPluginBin string
	echoBin       string
)

// TestMain serves the built-in plugins when this test binary is started as
// one (the host starts the running executable for a built-in, as the
// assay binary does), and otherwise builds the third-party test plugins.
func TestMain(m *testing.M) {
	builtin.Main()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv(replacedChild) == "1" {
		return m.Run() // TestBuiltinAfterUpgrade's child needs no test plugin
	}
	dir, err := os.MkdirTemp("", "assay-host-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testPluginBin = filepath.Join(dir, "testplugin")
	echoBin = filepath.Join(dir, "echotrainer")
	// One go build for both: the toolchain shares the work.
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./internal/testplugin", "../../examples/plugin/echotrainer")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the test plugins: %v\n%s", err, out)
		return 1
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
