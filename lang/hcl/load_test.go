package hcl

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/lang/spec"
)

func specFiles(t testing.TB) []string {
	files, err := filepath.Glob("../../specs/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	return files
}

func mustLoad(t *testing.T, name, src string, opts Options) *spec.Spec {
	t.Helper()
	s, ds := Load(name, []byte(src), opts)
	if len(ds) > 0 {
		t.Fatalf("Load: %s", ds.Format(0))
	}
	return s
}

func TestSpecsLoad(t *testing.T) {
	for _, f := range specFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, ds := LoadFile(f, Options{}); len(ds) > 0 {
				t.Fatal(ds.Format(0))
			}
		})
	}
}

// lm2lm.hcl extends specs/common/lm2lm.hcl, and this front end reads one
// file: the base holds the environments' shape, the spec their run cost,
// its loop, reward, calibration and builder (lang/load merges the two).
func TestLM2LMShape(t *testing.T) {
	b, ds := LoadFile("../../specs/common/lm2lm.hcl", Options{})
	if len(ds) > 0 {
		t.Fatal(ds.Format(0))
	}
	var names []string
	train, holdout := 0, 0
	for _, e := range b.Environments {
		names = append(names, e.Name)
		train += e.Tasks.Train.V
		holdout += e.Tasks.Holdout.V
		if e.Trainer.String() != "plugin.command" {
			t.Errorf("%s: trainer %v", e.Name, e.Trainer)
		}
	}
	// Dynamic blocks over a list keep the order written.
	want := []string{"olmo3", "qwen3", "nanochat", "marin", "e2d2_sw", "e2d2", "mdm", "bd3lm"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("environments (-want +got):\n%s", diff)
	}
	if train != 40 || holdout != 10 {
		t.Errorf("tasks %d/%d, want 40/10", train, holdout)
	}

	s, ds := LoadFile("../../specs/lm2lm.hcl", Options{})
	if len(ds) > 0 {
		t.Fatal(ds.Format(0))
	}
	if s.Extends.V != "common/lm2lm.hcl" {
		t.Errorf("extends = %q", s.Extends.V)
	}
	// A dynamic block over a map: one block per key, each naming the
	// environment of the base it completes.
	names = nil
	for _, e := range s.Environments {
		names = append(names, e.Name)
		if e.RunCost.Hours.V != spec.One(1.5) || !e.Baseline.Set {
			t.Errorf("%s: hours %v, baseline %v", e.Name, e.RunCost.Hours.V, e.Baseline)
		}
	}
	sort.Strings(names)
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("environments of lm2lm.hcl (-want +got):\n%s", diff)
	}
	l := s.Loops[0]
	if l.Steps.V != 96 || l.RolloutEvery.V != 8 || l.StatesPerStep.V != 256 || l.Preset.V != "dapo" {
		t.Errorf("loop = %+v", l)
	}
	if l.Reward.Kind != "reward" || l.Reward.Name != "rwm_gain" || !l.Reward.Range.Valid() {
		t.Errorf("reward ref = %+v", l.Reward)
	}
	if got := s.Calibration.Budget.V; len(got) != 3 || got[0]+got[1]+got[2] != 100 {
		t.Errorf("calibration budget = %v", got)
	}
	r := s.Rewards[0]
	// The formula's range starts inside the quotes.
	line := strings.Split(readFile(t, "../../specs/lm2lm.hcl"), "\n")[r.Value.Range.Start.Line-1]
	if !strings.HasPrefix(line[r.Value.Range.Start.Column-1:], "clip(") {
		t.Errorf("formula range points at %q", line[r.Value.Range.Start.Column-1:])
	}
	builder := 0
	for _, ro := range s.Roles {
		if ro.Name == "builder" {
			builder++
			if ro.Seconds.V != 240 {
				t.Errorf("builder seconds = %v, want 240", ro.Seconds.V)
			}
		}
	}
	if builder != 1 {
		t.Errorf("%d builder roles, want 1", builder)
	}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDecodeValues(t *testing.T) {
	src := `
name = "x-${upper("y")}"
seed = 3

critic "screen" {
  role            = "role.critic"
  votes           = max(4, 16)
  threshold       = 1 / 4
  expected_routed = { low = percent(30), expected = percent(36.3), high = 1 }
}

calibration {
  after_steps = range(10, 40, 10)
  budget      = 25
}

environment "e" {
  run_cost {
    gpu_hours = gpu_hours(8, hours("5h37m30s"))
  }
}

sweep {
  mode = "grid"
  axis "critic.screen.votes" {
    values = [4, "a", true]
  }
}

reward "r" {
  value = "gain * ${2}"
}
`
	s := mustLoad(t, "v.hcl", src, Options{})
	c := s.Critics[0]
	if s.Name.V != "x-Y" || c.Role.String() != "role.critic" || c.Votes.V != 16 || c.Threshold.V != 0.25 {
		t.Errorf("critic = %+v", c)
	}
	if want := (spec.Spread{Low: 0.3, Expected: 0.363, High: 1, Ranged: true}); c.ExpectedRouted.V != want {
		t.Errorf("expected_routed = %+v, want %+v", c.ExpectedRouted.V, want)
	}
	if diff := cmp.Diff([]int{10, 20, 30}, s.Calibration.AfterSteps.V); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]int{25}, s.Calibration.Budget.V); diff != "" {
		t.Error(diff)
	}
	if s.Environments[0].RunCost.GPUHours.V != spec.One(45) {
		t.Errorf("gpu_hours = %v", s.Environments[0].RunCost.GPUHours.V)
	}
	vals := s.Sweep.Axes[0].Values
	if len(vals) != 3 || vals[0].Num != 4 || vals[1].Str != "a" || !vals[2].Bool || vals[1].Range.Start.Column != 18 {
		t.Errorf("values = %+v", vals)
	}
	if s.Rewards[0].Value.V != "gain * 2" {
		t.Errorf("template formula = %q", s.Rewards[0].Value.V)
	}
	if c.Votes.Range.Start.Line != 7 || c.Votes.Range.Filename != "v.hcl" {
		t.Errorf("votes range = %v", c.Votes.Range)
	}
}

func TestVariables(t *testing.T) {
	src := `
variable "steps" {
  type    = number
  default = 96
}
variable "model" {
  type = string
}
variable "after" {
  type    = list(number)
  default = [16]
}
loop "l" {
  steps = var.steps
}
role "proposer" {
  model = var.model
}
calibration {
  after_steps = var.after
}
`
	dir := t.TempDir()
	vf := filepath.Join(dir, "vars.hcl")
	if err := os.WriteFile(vf, []byte("steps = 40\nmodel = \"from-file\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		opts  Options
		steps int
		model string
		after []int
		err   string
	}{
		{"flag", Options{Vars: []string{"model=m", "steps=12", "after=[1, 2]"}}, 12, "m", []int{1, 2}, ""},
		{"file", Options{VarFiles: []string{vf}}, 40, "from-file", []int{16}, ""},
		{"flag after file", Options{VarFiles: []string{vf}, Vars: []string{"steps=7"}}, 7, "from-file", []int{16}, ""},
		{"missing", Options{}, 0, "", nil, `E_VAR_REQUIRED`},
		{"unknown", Options{Vars: []string{"model=m", "stpes=3"}}, 0, "", nil, `did you mean "steps"? The declared variables are: after, model, steps`},
		{"not a number", Options{Vars: []string{"model=m", "steps=many"}}, 0, "", nil, `is a number, got "many"`},
		{"no equals", Options{Vars: []string{"model"}}, 0, "", nil, `not an assignment`},
		{"bad list", Options{Vars: []string{"model=m", "after=[1,"}}, 0, "", nil, `write it as HCL`},
		{"missing file", Options{VarFiles: []string{filepath.Join(dir, "nope.hcl")}}, 0, "", nil, `cannot read variable file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ds := Load("vars_spec.hcl", []byte(src), c.opts)
			if c.err != "" {
				if !strings.Contains(ds.Error(), c.err) {
					t.Fatalf("diagnostics %q lack %q", ds.Error(), c.err)
				}
				return
			}
			if len(ds) > 0 {
				t.Fatal(ds.Format(0))
			}
			if s.Loops[0].Steps.V != c.steps || s.Roles[0].Model.V != c.model {
				t.Errorf("steps %d model %q", s.Loops[0].Steps.V, s.Roles[0].Model.V)
			}
			if diff := cmp.Diff(c.after, s.Calibration.AfterSteps.V); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestVarFilePositions(t *testing.T) {
	dir := t.TempDir()
	vf := filepath.Join(dir, "bad.hcl")
	os.WriteFile(vf, []byte("\n\nsteeps = 3\n"), 0o644)
	_, ds := Load("s.hcl", []byte("variable \"steps\" {\n  default = 1\n}\n"), Options{VarFiles: []string{vf}})
	if len(ds) != 1 || ds[0].Range.Filename != vf || ds[0].Range.Start.Line != 3 || ds[0].Code != "E_VAR_UNKNOWN" {
		t.Fatalf("diagnostics = %v", ds)
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	_, ds := Load("x.hcl", []byte("seed = \"a\"\nbudget {\n  real_runs = 1.5\n  usd = \"x\"\n}\nfoo = 1\n"), Options{})
	if len(ds) != 4 {
		t.Fatalf("want 4 diagnostics, got %s", ds.Format(0))
	}
	for i := 1; i < len(ds); i++ {
		if ds[i].Range.Start.Line < ds[i-1].Range.Start.Line {
			t.Fatalf("not sorted: %v", ds)
		}
	}
}

func TestNullLeavesUnset(t *testing.T) {
	s := mustLoad(t, "n.hcl", "seed = null\n", Options{})
	if s.Seed.Set {
		t.Fatal("null set the seed")
	}
}

func BenchmarkLoadLM2LM(b *testing.B) {
	src, err := os.ReadFile("../../specs/lm2lm.hcl")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ds := Load("lm2lm.hcl", src, Options{}); len(ds) > 0 {
			b.Fatal(ds)
		}
	}
}
