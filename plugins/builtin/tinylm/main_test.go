package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"assay/plugins"
	"assay/plugins/host"
)

// openBuiltin builds the built-in plugin called name with the real host and
// starts it as a subprocess.
func openBuiltin(t *testing.T, name, kind string) *host.Plugin {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts a plugin binary")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	lock, err := host.Init(ctx, []host.Spec{{Name: name, Kind: kind, Source: host.BuiltinPrefix + name}},
		filepath.Join(dir, host.LockFileName), host.Options{ModuleRoot: root, CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := host.Open(ctx, lock, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestSubprocessRoundTrip(t *testing.T) {
	tr := openBuiltin(t, "tinylm", plugins.KindTrainer).Trainer()
	ctx := context.Background()
	d, err := tr.Describe(ctx, &plugins.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Knobs) < 10 || d.Knobs[0].Mechanism == "" {
		t.Fatalf("Describe = %+v", d)
	}
	cfg := map[string]any{"steps": 200}
	run := func(id string, edits map[string]string) *plugins.RunResult {
		h, err := tr.Start(ctx, &plugins.RunRequest{RunID: id, Task: "grammar", Seed: 3, Config: cfg, Proposal: plugins.Proposal{Edits: edits}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := tr.Wait(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a := run("a", map[string]string{"width": "64"})
	b := run("b", map[string]string{"width": "64"})
	if a.Status != plugins.StatusFinished || !(a.Metric > 0 && a.Metric < 8) {
		t.Fatalf("run a: %+v", a)
	}
	if a.Metric != b.Metric {
		t.Errorf("same seed and proposal, different metrics over the wire: %v vs %v", a.Metric, b.Metric)
	}
	bad := run("c", map[string]string{"width": "huge"})
	if bad.Status != plugins.StatusInfeasible || !strings.Contains(bad.Reason, "invalid value") {
		t.Errorf("invalid proposal: %+v", bad)
	}
	if _, err := tr.Start(ctx, &plugins.RunRequest{RunID: "d", Config: map[string]any{"corpus": "nope"}}); err == nil {
		t.Error("unknown corpus accepted")
	}
}
