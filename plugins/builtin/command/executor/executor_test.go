package executor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateEnvNames(t *testing.T) {
	job := &Job{Name: "j", Dir: "/tmp", Script: "run.sh"}
	for _, kv := range []string{"A=1", "_a9=$(x)"} {
		job.Env = []string{kv}
		if err := job.Validate(); err != nil {
			t.Errorf("%q: %v", kv, err)
		}
	}
	for _, kv := range []string{"A;touch x=1", "9A=1", "=1", "A B=1"} {
		job.Env = []string{kv}
		if err := job.Validate(); err == nil || !strings.Contains(err.Error(), "environment variable name") {
			t.Errorf("%q: got %v", kv, err)
		}
	}
}

// The wrapper exports values as data and runs the script.
func TestWrapperScriptQuotes(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte(`printf '%s' "$V" > out`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := "$(touch PWNED)'\"`touch PWNED`\n; touch PWNED"
	wrapper := filepath.Join(dir, "w.sh")
	if err := os.WriteFile(wrapper, []byte(WrapperScript(dir, script, []string{"V=" + v})), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", wrapper).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Fatal("a value ran")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out")); string(got) != v {
		t.Fatalf("got %q", got)
	}
	if code, ok := ReadExit(dir); !ok || code != 0 {
		t.Fatalf("exit %d %v", code, ok)
	}
}
