package load

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// specsDir is specs/ as an absolute path, so a spec in a temporary
// directory can extend one of them.
func specsDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("..", "..", "specs"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustLoad(t *testing.T, path string, opts Options) (*spec.Spec, Sources) {
	t.Helper()
	s, src, ds := Load(path, opts)
	if ds.HasErrors() || s == nil {
		t.Fatalf("Load(%s):\n%s", path, ds.Format(0))
	}
	return s, src
}

const evalBlock = `
evaluation {
  split   = "holdout"
  avg_at  = 4
  best_at = 4
}
`

// TestExtendsEqualsFlat checks that a spec extending lm2lm.hcl (which
// extends specs/common/lm2lm.hcl in turn) means the same as the flat spec
// written out by hand: the same tree and the same plan hash. The flat spec
// is lm2lm.hcl's twin, specs/lm2lm.cue, written without extends.
func TestExtendsEqualsFlat(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(specsDir(t), "lm2lm.cue"))
	if err != nil {
		t.Fatal(err)
	}
	flat := string(base)
	for _, e := range [][2]string{
		{`name:        "lm2lm"`, `name:        "lm2lm-x"`},
		{"real_runs: 200", "real_runs: 240"},
		{"usd:       60000", "usd:       70000"},
	} {
		if strings.Count(flat, e[0]) != 1 {
			t.Fatalf("lm2lm.cue changed: the test's edit %q no longer applies", e[0])
		}
		flat = strings.Replace(flat, e[0], e[1], 1)
	}
	flat += `
evaluation: {
	split:   "holdout"
	avg_at:  4
	best_at: 4
}
`
	dir := writeFiles(t, map[string]string{
		"flat.cue": flat,
		"child.hcl": `extends = "` + filepath.Join(specsDir(t), "lm2lm.hcl") + `"
name    = "lm2lm-x"
budget {
  real_runs = 240
  usd       = 70000
}
` + evalBlock,
	})
	fs, _ := mustLoad(t, filepath.Join(dir, "flat.cue"), Options{})
	cs, _ := mustLoad(t, filepath.Join(dir, "child.hcl"), Options{})
	if len(cs.Files) != 3 {
		t.Fatalf("the child's chain is %v, want it, lm2lm.hcl and common/lm2lm.hcl", cs.Files)
	}
	if d := cmp.Diff(spec.Tree(fs), spec.Tree(cs)); d != "" {
		t.Fatalf("trees differ (-flat +extends):\n%s", d)
	}
	fh, ch := compileHash(t, fs), compileHash(t, cs)
	if strings.HasPrefix(fh, "errors:") || fh != ch {
		t.Fatalf("plan hash: flat %s, extends %s", fh, ch)
	}
}

// TestExtendingSpecsMatchConverted checks each spec of specs/ that uses
// extends: written out flat by Write and loaded again, it plans the same.
func TestExtendingSpecsMatchConverted(t *testing.T) {
	paths, _ := filepath.Glob("../../specs/*.hcl")
	n := 0
	for _, path := range paths {
		s, _ := mustLoad(t, path, Options{})
		if len(s.Files) < 2 {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "flat.hcl")
			placeSuites(t, s, filepath.Dir(out))
			b, ds := Write(s, out)
			if ds.HasErrors() {
				t.Fatal(ds.Format(0))
			}
			if strings.Contains(string(b), "extends") {
				t.Fatalf("flat spec still extends:\n%s", b)
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
			fs, _ := mustLoad(t, out, Options{})
			if h, f := compileHash(t, s), compileHash(t, fs); h != f || strings.HasPrefix(h, "errors:") {
				t.Fatalf("plan hash: extends %s, flat %s", h, f)
			}
		})
	}
	if n == 0 {
		t.Skip("no spec in specs/ uses extends")
	}
}

// placeSuites copies the task-suite manifests s names into dir, at the
// path each environment's suite gives (one inside the spec's folder), so
// a spec written into dir reads the same manifests.
func placeSuites(t *testing.T, s *spec.Spec, dir string) {
	t.Helper()
	for _, e := range s.Environments {
		if !e.Suite.Set || filepath.IsAbs(e.Suite.V) || strings.HasPrefix(filepath.Clean(e.Suite.V), "..") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(e.Suite.Range.Filename), e.Suite.V))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, e.Suite.V)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// An HCL spec may extend a CUE spec and the other way round; both mean the
// same as extending the HCL original.
func TestExtendsAcrossLanguages(t *testing.T) {
	specs := specsDir(t)
	dir := writeFiles(t, map[string]string{
		"hcl-on-hcl.hcl": `extends = "` + filepath.Join(specs, "lm2lm.hcl") + `"
name = "x"
loop "policy" {
  steps = 40
}
` + evalBlock,
		"hcl-on-cue.hcl": `extends = "` + filepath.Join(specs, "lm2lm.cue") + `"
name = "x"
loop "policy" {
  steps = 40
}
` + evalBlock,
		"cue-on-hcl.cue": `extends: "` + filepath.Join(specs, "lm2lm.hcl") + `"
name: "x"
loop: policy: steps: 40
evaluation: {split: "holdout", avg_at: 4, best_at: 4}
`,
		// A CUE spec whose base is CUE, naming it relative to itself.
		"sub/cue-on-cue.cue": `extends: "../cue-on-hcl.cue"
`,
	})
	want, _ := mustLoad(t, filepath.Join(dir, "hcl-on-hcl.hcl"), Options{})
	if got := want.Loops[0].Steps.V; got != 40 {
		t.Fatalf("steps = %d, want the child's 40", got)
	}
	if want.Loops[0].Algorithm.V != "" || want.Loops[0].Preset.V != "dapo" {
		t.Fatalf("policy loop lost its base fields: %+v", want.Loops[0])
	}
	for _, name := range []string{"hcl-on-cue.hcl", "cue-on-hcl.cue", "sub/cue-on-cue.cue"} {
		t.Run(name, func(t *testing.T) {
			got, _ := mustLoad(t, filepath.Join(dir, name), Options{})
			if d := cmp.Diff(spec.Tree(want), spec.Tree(got)); d != "" {
				t.Fatalf("tree differs from HCL on HCL (-want +got):\n%s", d)
			}
			if h, g := compileHash(t, want), compileHash(t, got); h != g {
				t.Fatalf("plan hash %s, want %s", g, h)
			}
		})
	}
}

func TestExtendsFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.hcl":     "extends = \"b/b.hcl\"\nseed = 1\n",
		"b/b.hcl":   "extends = \"../c.cue\"\nseed = 2\n",
		"c.cue":     "seed: 3\nname: \"c\"\n",
		"loose.hcl": "seed = 4\n",
	})
	s, src := mustLoad(t, filepath.Join(dir, "a.hcl"), Options{})
	want := []string{filepath.Join(dir, "a.hcl"), filepath.Join(dir, "b", "b.hcl"), filepath.Join(dir, "c.cue")}
	var got []string
	for _, f := range s.Files {
		got = append(got, filepath.Clean(f))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	for _, f := range s.Files {
		if len(src[f]) == 0 {
			t.Errorf("no source for %s", f)
		}
	}
	if s.Seed.V != 1 || s.Name.V != "c" || s.Extends.Set {
		t.Errorf("seed %d name %q extends %v; want 1, \"c\", unset", s.Seed.V, s.Name.V, s.Extends.Set)
	}
}

func TestExtendsErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"missing.hcl":  "extends = \"nope.hcl\"\nseed = 1\n",
		"self.hcl":     "extends = \"self.hcl\"\n",
		"a.hcl":        "extends = \"b.cue\"\n",
		"b.cue":        "extends: \"a.hcl\"\n",
		"empty.hcl":    "extends = \"\"\n",
		"toml.hcl":     "extends = \"base.toml\"\n",
		"base.toml":    "seed = 1\n",
		"badbase.hcl":  "extends = \"syntax.hcl\"\n",
		"syntax.hcl":   "seed = \n",
		"typed.hcl":    "extends = 3\n",
		"missing2.cue": "extends: \"gone.cue\"\n",
	})
	cases := []struct {
		file, code, summary string
		at                  string // file:line of the diagnostic
	}{
		{"missing.hcl", "E_EXTENDS", "cannot read base spec", "missing.hcl:1"},
		{"missing2.cue", "E_EXTENDS", "cannot read base spec", "missing2.cue:1"},
		{"self.hcl", "E_EXTENDS_CYCLE", "self.hcl -> ", "self.hcl:1"},
		{"a.hcl", "E_EXTENDS_CYCLE", "a.hcl -> " + filepath.Join(dir, "b.cue") + " -> ", "b.cue:1"},
		{"empty.hcl", "E_EXTENDS", "extends is empty", "empty.hcl:1"},
		{"toml.hcl", "E_EXTENDS", "cannot tell the spec language", "toml.hcl:1"},
		{"badbase.hcl", "E_SYNTAX", "", "syntax.hcl:1"},
		{"typed.hcl", "E_TYPE", "", "typed.hcl:1"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, _, ds := Load(filepath.Join(dir, c.file), Options{})
			errs := ds.Errors()
			if len(errs) != 1 {
				t.Fatalf("want one error %s, got:\n%s", c.code, ds.Format(0))
			}
			d := errs[0]
			where := filepath.Base(d.Range.Filename) + ":" + strconv.Itoa(d.Range.Start.Line)
			if d.Code != c.code || !strings.Contains(d.Summary, c.summary) || where != c.at {
				t.Fatalf("got %s %s %q, want %s at %s containing %q", where, d.Code, d.Summary, c.code, c.at, c.summary)
			}
			if d.Detail == "" && strings.HasPrefix(c.code, "E_EXTENDS") {
				t.Error("no detail saying what to do")
			}
		})
	}
}

// A -var may name a variable that only the base declares; one that no file
// declares is still an error, with a suggestion over every file's variables.
func TestExtendsVariables(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.hcl": `variable "steps" {
  type    = number
  default = 96
}
loop "policy" {
  preset = "dapo"
  steps  = var.steps
}
`,
		"child.hcl": `extends = "base.hcl"
variable "votes" {
  type    = number
  default = 8
}
seed = var.votes
`,
		"child.cue": `extends: "base.hcl"
variable: votes: {type: "number", default: 8}
seed: var.votes
`,
		"vars.hcl": "steps = 12\n",
		"typo.hcl": "stepz = 12\n",
	})
	for _, child := range []string{"child.hcl", "child.cue"} {
		t.Run(child, func(t *testing.T) {
			path := filepath.Join(dir, child)
			s, _ := mustLoad(t, path, Options{Vars: []string{"steps=40", "votes=4"}})
			if s.Loops[0].Steps.V != 40 || s.Seed.V != 4 {
				t.Errorf("steps %d seed %d, want 40 and 4", s.Loops[0].Steps.V, s.Seed.V)
			}
			if len(s.Variables) != 2 {
				t.Errorf("variables = %d, want both files' 2", len(s.Variables))
			}
			if !strings.HasSuffix(s.Loops[0].Steps.Range.Filename, "base.hcl") {
				t.Errorf("steps comes from %s, want base.hcl", s.Loops[0].Steps.Range)
			}
			// Every front end of the chain reads the var files, so a chain
			// that mixes languages cannot take one.
			if child == "child.hcl" {
				s, _ = mustLoad(t, path, Options{VarFiles: []string{filepath.Join(dir, "vars.hcl")}})
				if s.Loops[0].Steps.V != 12 {
					t.Errorf("steps %d from the var file, want 12", s.Loops[0].Steps.V)
				}
			}

			_, _, ds := Load(path, Options{Vars: []string{"stpes=40"}})
			if len(ds) != 1 || ds[0].Code != "E_VAR_UNKNOWN" || !strings.Contains(ds[0].Detail, `did you mean "steps"`) || !strings.Contains(ds[0].Summary, "-var stpes") {
				t.Errorf("unknown -var: got\n%s", ds.Format(0))
			}
		})
	}
	_, _, ds := Load(filepath.Join(dir, "child.hcl"), Options{VarFiles: []string{filepath.Join(dir, "typo.hcl")}})
	if len(ds) != 1 || ds[0].Code != "E_VAR_UNKNOWN" || filepath.Base(ds[0].Range.Filename) != "typo.hcl" || ds[0].Range.Start.Line != 1 {
		t.Errorf("unknown name in a var file: got\n%s", ds.Format(0))
	}
	_, _, ds = Load(filepath.Join(dir, "base.hcl"), Options{Vars: []string{"votes=4"}})
	if len(ds) != 1 || ds[0].Code != "E_VAR_UNKNOWN" || !strings.Contains(ds[0].Detail, "steps") {
		t.Errorf("a variable only the child declares, given to the base alone: got\n%s", ds.Format(0))
	}
}

// A diagnostic about an inherited value points into the base file, and the
// sources carry the base so the snippet shows its line.
func TestExtendsDiagnosticsPointIntoBase(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(specsDir(t), "lm2lm.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(base), "rollout_every       = 8", "rollout_every       = -8", 1)
	if broken == string(base) {
		t.Fatal("lm2lm.hcl changed: the test's edit no longer applies")
	}
	common, err := os.ReadFile(filepath.Join(specsDir(t), "common", "lm2lm.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{
		"base.hcl":         broken,
		"common/lm2lm.hcl": string(common), // what lm2lm.hcl extends in turn
		"child.hcl":        "extends = \"base.hcl\"\nname = \"child\"\n",
		"front.hcl":        "extends = \"front-base.hcl\"\n",
		"front-base.hcl": `seed = 0
seed_typo = 1
`,
	})
	s, src := mustLoad(t, filepath.Join(dir, "child.hcl"), Options{})
	_, ds := compiler.Compile(s, compiler.Options{})
	checkInBase(t, ds, src, "base.hcl", "rollout_every       = -8")

	_, src, ds = Load(filepath.Join(dir, "front.hcl"), Options{})
	checkInBase(t, ds, src, "front-base.hcl", "seed_typo = 1")
}

func checkInBase(t *testing.T, ds diag.Diagnostics, src Sources, file, line string) {
	t.Helper()
	errs := ds.Errors()
	if len(errs) == 0 {
		t.Fatalf("no error; want one in %s", file)
	}
	errs.Annotate(src)
	d := errs[0]
	if filepath.Base(d.Range.Filename) != file || !strings.Contains(d.Snippet, line) {
		t.Fatalf("error at %s with snippet %q; want %s showing %q\n%s", d.Range, d.Snippet, file, line, errs.Format(0))
	}
}
