package trainer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// A task suite's evaluation command (task_command) replaces command and
// runs in task_dir; each word reaches the program as it is, so a word
// that reads as shell code stays text.
func TestTaskCommand(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "eval.sh")
	// The program prints its arguments one a line, its directory and the
	// overrides it read, then the metric.
	os.WriteFile(prog, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\necho \"pwd:$(pwd)\"\ncat \"$ASSAY_CONFIG\"\necho loss=0.5\n"), 0o755)
	cfg := map[string]any{
		"command":      "echo loss=9",
		"task_command": []any{"./eval.sh", "-task", "spirals", "$(touch pwned)", "a b", "it's"},
		"task_dir":     dir,
		"metric_regex": `loss=([0-9.]+)`,
		"knobs":        map[string]any{"lr": map[string]any{"default": 0.1}},
	}
	req := request(t, "r1", cfg, map[string]string{"lr": "0.3"})
	res := run(t, newTrainer(), req)
	if res.Status != plugins.StatusFinished || res.Metric != 0.5 {
		t.Fatalf("result %+v", res)
	}
	out, _ := os.ReadFile(filepath.Join(req.WorkDir, StdoutFile))
	for _, want := range []string{"arg:-task\narg:spirals\narg:$(touch pwned)\narg:a b\narg:it's\n", "pwd:" + dir + "\n", `"lr": 0.3`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a word of task_command ran as shell code")
	}
	// Bad argv is the config's fault, named.
	for _, bad := range []any{[]any{"", "x"}, []any{"go\x00"}} {
		cfg["task_command"] = bad
		if _, err := ParseConfig(cfg); err == nil || !strings.Contains(err.Error(), "task_command") {
			t.Errorf("task_command %q: %v", bad, err)
		}
	}
}
