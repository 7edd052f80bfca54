package cue

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cuelang.org/go/cue/parser"

	"github.com/assay-lang/assay/lang/spec"
)

var marker = regexp.MustCompile(`// ERROR (\S+): (.*)$`)

// TestInvalid loads each testdata/invalid file and checks its diagnostics
// against the "// ERROR CODE: text" markers line by line: every marker must
// be matched by an error on its line, and every error must have a marker.
func TestInvalid(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.cue")
	if len(files) == 0 {
		t.Fatal("no invalid specs")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, _ := os.ReadFile(path)
			want := map[int][2]string{}
			for i, line := range strings.Split(string(src), "\n") {
				if m := marker.FindStringSubmatch(line); m != nil {
					want[i+1] = [2]string{m[1], m[2]}
				}
			}
			_, ds := LoadFile(path, Options{})
			seen := map[int]bool{}
			for _, d := range ds {
				if !d.Range.Valid() || d.Range.Filename != path {
					t.Errorf("diagnostic without a position in %s: %s", path, d.Error())
					continue
				}
				w, ok := want[d.Range.Start.Line]
				if !ok {
					t.Errorf("unexpected: %s", d.Error())
					continue
				}
				if d.Code != w[0] || !strings.Contains(d.Summary+" "+d.Detail, w[1]) {
					t.Errorf("line %d: got %s, want [%s] containing %q", d.Range.Start.Line, d.Error(), w[0], w[1])
				}
				seen[d.Range.Start.Line] = true
			}
			for line, w := range want {
				if !seen[line] {
					t.Errorf("line %d: no diagnostic, want [%s] %q; got:\n%s", line, w[0], w[1], ds.Format(0))
				}
			}
		})
	}
}

func loadString(t *testing.T, src string, opts Options) (*spec.Spec, string) {
	t.Helper()
	s, ds := Load([]Source{{Name: "spec.cue", Src: []byte(src)}}, opts)
	return s, ds.Format(0)
}

func TestVariables(t *testing.T) {
	src := `
variable: steps: {type: "number", default: 96}
variable: budget: {type: "list(number)", default: [31, 35, 34]}
loop: policy: steps: var.steps
calibration: budget: var.budget
`
	s, errs := loadString(t, src, Options{})
	if errs != "" || s.Loops[0].Steps.V != 96 || len(s.Calibration.Budget.V) != 3 {
		t.Fatalf("defaults: %+v %s", s.Loops[0].Steps, errs)
	}
	s, errs = loadString(t, src, Options{Vars: []string{"steps=40", "budget=[50, 50]"}})
	if errs != "" || s.Loops[0].Steps.V != 40 || s.Calibration.Budget.V[1] != 50 || s.Variables[0].Value.V != 40.0 {
		t.Fatalf("-var: %+v %s", s.Loops[0].Steps, errs)
	}
	if s.Loops[0].Steps.Range.Start.Line != 4 {
		t.Errorf("steps range %v, want line 4 of the spec", s.Loops[0].Steps.Range)
	}
	vf := filepath.Join(t.TempDir(), "vars.cue")
	os.WriteFile(vf, []byte("steps: 64\n"), 0o644)
	s, errs = loadString(t, src, Options{VarFiles: []string{vf}})
	if errs != "" || s.Loops[0].Steps.V != 64 {
		t.Fatalf("-var-file: %+v %s", s.Loops[0].Steps, errs)
	}
	for in, want := range map[string]string{
		"stpes=3":   `E_VAR_UNKNOWN`,
		"steps":     `E_VAR_SYNTAX`,
		"steps=abc": `E_VAR_TYPE`,
		"budget=3":  `E_VAR_TYPE`,
	} {
		_, errs := loadString(t, src, Options{Vars: []string{in}})
		if !strings.Contains(errs, want) {
			t.Errorf("-var %s: got %q, want %s", in, errs, want)
		}
	}
}

// References may be strings or CUE references to the block.
func TestReferences(t *testing.T) {
	s, errs := loadString(t, `
role: rwm: model: "m"
reward: r: {source: "predicted", predictor: role.rwm}
loop: policy: reward: "reward.r"
`, Options{})
	if errs != "" {
		t.Fatal(errs)
	}
	if got := s.Rewards[0].Predictor.String(); got != "role.rwm" {
		t.Errorf("predictor = %q", got)
	}
	if got := s.Loops[0].Reward.String(); got != "reward.r" {
		t.Errorf("reward = %q", got)
	}
	if s.Rewards[0].Predictor.Range.Start.Line != 3 {
		t.Errorf("predictor range %v", s.Rewards[0].Predictor.Range)
	}
}

// A directory of .cue files is one package.
func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.cue"), []byte("package x\nname: \"d\"\nloop: policy: steps: _steps\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.cue"), []byte("package x\n_steps: 12\n"), 0o644)
	s, ds := LoadFile(dir, Options{})
	if ds.HasErrors() || s.Loops[0].Steps.V != 12 || len(s.Files) != 2 {
		t.Fatalf("%+v %s", s, ds.Format(0))
	}
	os.WriteFile(filepath.Join(dir, "c.cue"), []byte("package y\n"), 0o644)
	if _, ds := LoadFile(dir, Options{}); !ds.HasErrors() {
		t.Fatal("mixed packages loaded")
	}
}

// FuzzLoadCUE checks that no input makes Load or Write panic or hang. The
// seed corpus runs as part of go test.
//
// Seeds are the top-level declarations of the shipped specs one by one, not
// whole files, and inputs are at most maxFuzzInput bytes: the fuzzer
// minimizes each new interesting input by re-running it byte by byte for up
// to a minute, and on whole specs that kept both workers minimizing, so the
// run stalled at a few dozen execs. Whole specs are loaded by the package's
// other tests.
func FuzzLoadCUE(f *testing.F) {
	for _, p := range []string{"../../specs/lm2lm.cue", "../../specs/critic-grpo.cue"} {
		if b, err := os.ReadFile(p); err == nil {
			for _, d := range topLevel(b) {
				f.Add(d)
			}
		}
	}
	files, _ := filepath.Glob("testdata/invalid/*.cue")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte(`loop: x: reward: loop.x`))
	f.Add([]byte(`environment: 3`))
	f.Add([]byte(`sweep: axis: "critic.screen.votes": values: [8, "a", true, {}]`))
	f.Add([]byte(`variable: v: {type: "list(string)", default: [1]}`))
	f.Add([]byte("import \"list\"\n_l: list.Range(0, 3, 1)\nname: \"x\\(len([for a in _l {a}]))\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		// A deadline well below the fuzzer's own hang detection, so a slow
		// input shows as E_TOO_COMPLEX rather than a hung worker.
		s, ds := Load([]Source{{Name: "fuzz.cue", Src: b}}, Options{Timeout: time.Second})
		if s == nil && !ds.HasErrors() {
			t.Fatal("nil spec without an error")
		}
		if s != nil && !ds.HasErrors() {
			Write(s) // must render whatever loads
		}
	})
}

// maxFuzzInput bounds the inputs the fuzzer explores: the mutator grows
// inputs to many kilobytes, and minimizing one that finds new coverage
// re-runs it once per byte. Inputs past the bound return at once, so they
// never look new. Load's own size bounds are tested in limits_test.go.
const maxFuzzInput = 2048

// topLevel splits a file into the source of its declarations; a file that
// does not parse is returned whole.
func topLevel(src []byte) [][]byte {
	f, err := parser.ParseFile("seed.cue", src)
	if err != nil {
		return [][]byte{src}
	}
	var out [][]byte
	for _, d := range f.Decls {
		from, to := d.Pos().Offset(), d.End().Offset()
		if d.Pos().IsValid() && d.End().IsValid() && from < to && to <= len(src) {
			out = append(out, src[from:to])
		}
	}
	return out
}

// An assumed figure is a number or {low, expected, high}, as in HCL; a
// struct with other keys is refused at the field.
func TestAssumedFigures(t *testing.T) {
	s, errs := loadString(t, `
critic: screen: expected_routed: 0.363
role: builder: build_failures: {low: 0, expected: 0.05, high: 0.5}
role: builder: tokens: {in: {low: 100, expected: 200, high: 400}, out: 50}
`, Options{})
	if errs != "" {
		t.Fatal(errs)
	}
	if got := s.Critics[0].ExpectedRouted.V; got != spec.One(0.363) {
		t.Errorf("expected_routed = %+v", got)
	}
	r := s.Roles[0]
	if got, want := r.BuildFailures.V, (spec.Spread{Low: 0, Expected: 0.05, High: 0.5, Ranged: true}); got != want {
		t.Errorf("build_failures = %+v, want %+v", got, want)
	}
	if got, want := r.Tokens.In.V, (spec.Spread{Low: 100, Expected: 200, High: 400, Ranged: true}); got != want || r.Tokens.Out.V != spec.One(50) {
		t.Errorf("tokens = %+v / %+v", got, r.Tokens.Out.V)
	}
	if r.BuildFailures.Range.Start.Line != 3 {
		t.Errorf("build_failures range %v, want line 3", r.BuildFailures.Range)
	}
	_, errs = loadString(t, "role: builder: build_failures: {low: 0, expected: 0.05, top: 0.5}\n", Options{})
	if !strings.Contains(errs, "spec.cue:1") || !strings.Contains(errs, "top") {
		t.Errorf("a struct with another key: got %q", errs)
	}
}
