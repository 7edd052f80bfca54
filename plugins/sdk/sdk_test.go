package sdk

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHelperOrphan is not a test on its own: TestPluginExitsWithHost runs the
// test binary in this mode as a stand-in plugin process.
func TestHelperOrphan(t *testing.T) {
	if os.Getenv("ASSAY_SDK_ORPHAN") != "1" {
		t.Skip("helper process for TestPluginExitsWithHost")
	}
	exitWithParent(os.Getppid(), 20*time.Millisecond)
	time.Sleep(time.Hour) // only os.Exit in exitWithParent may end this process
}

// A plugin whose host dies (here: a shell that exits without waiting for
// it) must exit by itself instead of lingering as an orphan.
func TestPluginExitsWithHost(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `"$0" -test.run='^TestHelperOrphan$' >/dev/null 2>&1 & echo $!; sleep 0.3`, bin)
	cmd.Env = append(os.Environ(), "ASSAY_SDK_ORPHAN=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("child pid: %v (%q)", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
	t.Fatalf("plugin process %d still running 10 s after its host exited", pid)
}

// alive reports whether pid runs and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
