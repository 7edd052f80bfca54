package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins/host"
)

// checkSaved accepts a saved plan whose spec files and plugin executables
// are unchanged, and refuses one where the spec, a third-party plugin or
// the assay binary serving a built-in changed, naming the change.
func TestCheckSaved(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.hcl")
	os.WriteFile(spec, []byte("# spec\n"), 0o644)
	tool := filepath.Join(dir, "trainer.sh")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Name: "s", Variants: []*plan.Variant{{Name: "default", Plugins: []*plan.Plugin{
		{Name: "trainer", Kind: "trainer", Source: "./trainer.sh"},
		{Name: "llm", Kind: "llm", Source: "builtin:offline"},
	}}}}
	p.ComputeHash()
	lock, err := host.Init(context.Background(), pluginSpecs(p), host.LockPathFor(spec), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pins, err := pinsFor(p, lock)
	if err != nil {
		t.Fatal(err)
	}
	saved := &plan.Saved{Format: plan.SavedFormat, Spec: "s.hcl", Files: []plan.FileHash{{Path: "s.hcl", SHA256: sha256Hex([]byte("# spec\n"))}}, Plugins: pins, Plan: p}
	planPath := filepath.Join(dir, "s.plan")

	if got, _, err := checkSaved(saved, planPath); err != nil || got != spec {
		t.Fatalf("unchanged: spec %q, err %v", got, err)
	}
	refused := func(what string, want ...string) {
		t.Helper()
		_, _, err := checkSaved(saved, planPath)
		if err == nil {
			t.Fatalf("%s: the saved plan was accepted", what)
		}
		for _, w := range append(want, "save the plan again: assay plan -out "+planPath+" "+spec) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", what, err, w)
			}
		}
	}

	os.WriteFile(spec, []byte("# spec, edited\n"), 0o644)
	refused("changed spec", "spec file s.hcl changed since the plan was saved")
	os.WriteFile(spec, []byte("# spec\n"), 0o644)

	os.WriteFile(tool, []byte("#!/bin/sh\n# rebuilt\n"), 0o755)
	refused("changed plugin", `plugin "trainer" changed since the plan was saved: its executable ./trainer.sh has SHA-256`)
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)

	saved.Plugins = append([]plan.PluginPin(nil), pins...)
	saved.Plugins[1].SHA256 = strings.Repeat("0", 64) // saved by another assay binary
	refused("changed assay binary", `plugin "llm" changed since the plan was saved: the assay binary that serves it`)
	saved.Plugins = pins

	if _, _, err := checkSaved(saved, planPath); err != nil {
		t.Errorf("restored: %v", err)
	}
}

// The refusal's suggested command can be pasted from the working
// directory: the spec's path in it is relative to the working directory,
// not to the plan file (which records it so).
func TestCheckSavedHintFromWorkDir(t *testing.T) {
	dir := t.TempDir()
	specs := filepath.Join(dir, "specs")
	os.MkdirAll(specs, 0o755)
	spec := filepath.Join(specs, "s.hcl")
	os.WriteFile(spec, []byte("# spec\n"), 0o644)
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Name: "s", Variants: []*plan.Variant{{Name: "default"}}}
	p.ComputeHash()
	saved := &plan.Saved{Format: plan.SavedFormat, Spec: "specs/s.hcl", Files: []plan.FileHash{{Path: "specs/s.hcl", SHA256: sha256Hex([]byte("# edited\n"))}}, Plan: p}
	t.Chdir(specs)
	_, _, err := checkSaved(saved, filepath.Join("..", "s.plan"))
	if err == nil {
		t.Fatal("a saved plan whose spec changed was accepted")
	}
	if want := "save the plan again: assay plan -out ../s.plan s.hcl"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %q does not end %q", err, want)
	}
}

func TestIsSavedAndParse(t *testing.T) {
	for _, b := range []string{``, `plan "x" {}`, `{"name": "a spec in JSON"}`, `{"assay_saved_plan"`} {
		if plan.IsSaved([]byte(b)) {
			t.Errorf("IsSaved(%q) = true", b)
		}
	}
	if !plan.IsSaved([]byte(` {"assay_saved_plan": 7}`)) {
		t.Error("a saved plan of another format is not recognised")
	}
	if _, err := plan.ParseSaved([]byte(`{"assay_saved_plan": 7}`)); err == nil || !strings.Contains(err.Error(), "format 7") {
		t.Errorf("ParseSaved of another format: %v", err)
	}
}

// A saved plan whose plan is of an older format (here 1.6's, whose
// calibration rounds were phases of their own and whose phases had no
// bodies) is refused before its plan is read, with the command that
// saves it again from its spec.
func TestOldPlanFormatRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.plan")
	old := `{"assay_saved_plan": 1, "spec": "s.hcl", "files": [{"path": "s.hcl", "sha256": "00"}], "plugins": [],
  "plan": {"format_version": "1.6", "hash": "sha256:00", "name": "s", "variants": [{"name": "default",
    "calibration": {"loop": "policy", "after_steps": [4], "budget": [3]},
    "phases": [{"name": "rl.policy", "kind": "rl", "loop": "policy", "calibrations": ["calibration.policy.4"], "steps": 3},
      {"name": "calibration.policy.4", "kind": "calibration", "loop": "policy", "after_step": 4}]}]}}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, ok, err := readSaved("old.plan")
	if !ok || err == nil {
		t.Fatalf("a saved plan of format 1.6: saved %v, error %v", ok, err)
	}
	for _, want := range []string{"a plan of format 1.6, this assay runs format " + plan.FormatVersion, "save the plan again: assay plan -out old.plan s.hcl"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A saved plan edited by hand, with its hash recomputed, passes every pin
// but is not what its spec compiles to: run refuses it, naming where it
// first differs.
func TestRecompileSaved(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../specs/quickstart-critic.hcl")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "q.hcl")
	os.WriteFile(spec, src, 0o644)
	p, ds, _ := compileSpec(spec, &specFlags{sets: []string{"critic.screen.votes=7"}})
	if p == nil {
		t.Fatal(ds.Format(0))
	}
	planPath := filepath.Join(dir, "q.plan")
	saved := &plan.Saved{Format: plan.SavedFormat, Spec: "q.hcl", Plan: p}
	if err := recompileSaved(saved, spec, planPath); err != nil {
		t.Fatalf("unedited: %v", err)
	}
	b, _ := json.Marshal(p)
	var edited plan.Plan
	json.Unmarshal(b, &edited)
	edited.Variants[0].Seed++
	edited.ComputeHash()
	saved.Plan = &edited
	err = recompileSaved(saved, spec, planPath)
	if err == nil || !strings.Contains(err.Error(), "not what q.hcl compiles to") || !strings.Contains(err.Error(), "differs first at plan.variants[0].seed") {
		t.Fatalf("edited seed: %v", err)
	}
}

// plan -out checks the executables against the lock before saving: a
// rebuilt plugin is refused, and no plan is written.
func TestSavePlanChecksLock(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.hcl")
	os.WriteFile(spec, []byte("# spec\n"), 0o644)
	tool := filepath.Join(dir, "trainer.sh")
	os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755)
	p := &plan.Plan{FormatVersion: plan.FormatVersion, Name: "s", Variants: []*plan.Variant{{Name: "default", Plugins: []*plan.Plugin{
		{Name: "trainer", Kind: "trainer", Source: "./trainer.sh"},
	}}}}
	p.ComputeHash()
	if _, err := host.Init(context.Background(), pluginSpecs(p), host.LockPathFor(spec), host.Options{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s.plan")
	src := load.Sources{spec: []byte("# spec\n")}
	if err := savePlan(context.Background(), out, spec, src, p, &specFlags{}, io.Discard); err != nil {
		t.Fatalf("locked executable: %v", err)
	}
	os.Remove(out)
	os.WriteFile(tool, []byte("#!/bin/sh\n# rebuilt\n"), 0o755)
	err := savePlan(context.Background(), out, spec, src, p, &specFlags{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `plugin "trainer": the executable`) || !strings.Contains(err.Error(), "assay init -upgrade=trainer") {
		t.Fatalf("rebuilt executable: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the plan was saved")
	}
}
