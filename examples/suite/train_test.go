package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
)

// The manifest and the program agree: every task trains, its baseline is
// what the unchanged program measures (seed 1), inside its bounds, and its
// evaluator runs this program on it.
func TestManifestMatchesTheProgram(t *testing.T) {
	m, ds := load.ReadManifest("suite.json")
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var names []string
	domains := map[string]bool{}
	splits := map[string]bool{}
	for _, mt := range m.Tasks {
		names = append(names, mt.Name)
		domains[mt.Domain], splits[mt.Split] = true, true
		ds, ok := Load(mt.Name)
		if !ok {
			t.Fatalf("%s: no such task in train.go", mt.Name)
		}
		got, err := trainLoss(ds, Defaults())
		if err != nil {
			t.Fatal(err)
		}
		if d := got - *mt.Baseline; d > 1e-5 || d < -1e-5 {
			t.Errorf("%s: the unchanged program measures %.6f; the manifest's baseline is %v", mt.Name, got, *mt.Baseline)
		}
		if got < *mt.Bounds.Low || got > *mt.Bounds.High {
			t.Errorf("%s: baseline %.6f outside bounds [%v, %v]", mt.Name, got, *mt.Bounds.Low, *mt.Bounds.High)
		}
		if want := []string{"go", "run", "-trimpath", ".", "-task", mt.Name}; !slices.Equal(mt.Evaluate, want) {
			t.Errorf("%s: evaluate %q, want %q", mt.Name, mt.Evaluate, want)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, TaskNames()) {
		t.Errorf("manifest tasks %v, program tasks %v", names, TaskNames())
	}
	if len(domains) < 2 || !splits["train"] || !splits["holdout"] {
		t.Errorf("want two domains and both splits: %v %v", domains, splits)
	}
}

// Real changes move the metric both ways on every task: a wider net with a
// higher rate, more epochs and a cosine schedule beats the baseline by a
// wide margin; a timid rate does worse.
func TestChangesMoveTheMetric(t *testing.T) {
	better := Defaults()
	better.LR, better.Hidden, better.Epochs, better.Schedule = 0.3, 32, 300, "cosine"
	worse := Defaults()
	worse.LR = 0.01
	for _, name := range TaskNames() {
		ds, _ := Load(name)
		base, _ := trainLoss(ds, Defaults())
		b, err := trainLoss(ds, better)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := trainLoss(ds, worse)
		if b > base/2 {
			t.Errorf("%s: the tuned setup gives %.4f, not under half the baseline %.4f", name, b, base)
		}
		if w <= base {
			t.Errorf("%s: lr 0.01 gives %.4f, not worse than the baseline %.4f", name, w, base)
		}
	}
}

// trainLoss trains on ds with h (seed 1) and evaluates as main does.
func trainLoss(ds *Dataset, h Hyper) (float64, error) {
	m, err := Train(ds.TrainX, ds.TrainY, ds.Classify, h, 1, io.Discard)
	if err != nil {
		return 0, err
	}
	return Evaluate(m, ds)
}

func TestOverrides(t *testing.T) {
	h := Defaults()
	if err := ReadOverrides(strings.NewReader(`{"lr": 0.3, "hidden": 16, "schedule": "cosine"}`), &h); err != nil {
		t.Fatal(err)
	}
	if h.LR != 0.3 || h.Hidden != 16 || h.Schedule != "cosine" || h.Epochs != Defaults().Epochs {
		t.Errorf("overrides applied as %+v", h)
	}
	for _, bad := range []string{`{"learning_rate": 0.3}`, `{"lr": -1}`, `{"schedule": "linear"}`, `{"hidden": "wide"}`} {
		h := Defaults()
		if err := ReadOverrides(strings.NewReader(bad), &h); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// The built program prints the metric as its last line, reads its
// overrides from $ASSAY_CONFIG, and exits 3 on a knob it does not know.
func TestProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "train")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "overrides.json")
	os.WriteFile(cfg, []byte(`{"lr": 0.1}`), 0o644)
	cmd := exec.Command(bin, "-task", "sine")
	cmd.Env = append(os.Environ(), "ASSAY_CONFIG="+cfg, "ASSAY_SEED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if last := lines[len(lines)-1]; last != "val_loss=0.082548" {
		t.Errorf("last line %q", last)
	}
	os.WriteFile(cfg, []byte(`{"lr": 0.1, "momentum": 0.9}`), 0o644)
	cmd = exec.Command(bin, "-task", "sine")
	cmd.Env = append(os.Environ(), "ASSAY_CONFIG="+cfg)
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != exitInfeasible {
		t.Errorf("an unknown knob: %v, want exit %d", err, exitInfeasible)
	}
}
