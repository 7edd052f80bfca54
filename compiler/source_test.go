package compiler

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// gitSeed makes a real git repository with one commit in dir/name.
func gitSeed(t *testing.T, dir, name string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := filepath.Join(dir, name)
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seed"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

// compileAt compiles HCL src as if it were the file dir/spec.hcl, with
// repositories checked by real git.
func compileAt(t *testing.T, dir, src string) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	s, ds := hcl.Load(filepath.Join(dir, "spec.hcl"), []byte(src), hcl.Options{})
	if ds.HasErrors() {
		t.Fatalf("does not load:\n%s", ds.Format(0))
	}
	p, cds := Compile(s, Options{CheckRepository: gitrepo.Check})
	return p, append(ds, cds...)
}

const mdmSource = `  source {
    repository = "seed"
    editable   = ["*.go"]
    build      = ["go", "vet", "."]
    repairs    = 3
  }
  task "t1" {`

func TestSourceLowersPerTask(t *testing.T) {
	dir := t.TempDir()
	gitSeed(t, dir, "seed")
	base := readBase(t)
	without, ds := compileAt(t, dir, base)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	src, _ := mutate(t, base, `  task "t1" {`, mdmSource)
	src, _ = mutate(t, src, "    scale = 0.02\n  }\n  task \"t2\" {", "    scale = 0.02\n    source {\n      editable = \"main.go\"\n      revision = \"HEAD~0\"\n    }\n  }\n  task \"t2\" {")
	p, ds := compileAt(t, dir, src)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	tasks := map[string]*plan.Task{}
	for _, e := range p.Variants[0].Envs {
		for _, tk := range e.Tasks {
			tasks[e.Name+"/"+tk.Name] = tk
		}
	}
	t1, t2 := tasks["mdm/t1"].Source, tasks["mdm/t2"].Source
	if t1 == nil || t2 == nil {
		t.Fatalf("mdm tasks have no source: %+v %+v", tasks["mdm/t1"], tasks["mdm/t2"])
	}
	if want := filepath.Join(dir, "seed"); t1.Repository != want {
		t.Fatalf("repository %q, want %q (relative to the spec file)", t1.Repository, want)
	}
	if t1.Revision != "HEAD~0" || strings.Join(t1.Editable, ",") != "main.go" || t1.Repairs != 3 || strings.Join(t1.Build, " ") != "go vet ." {
		t.Fatalf("t1 does not override field by field: %+v", t1)
	}
	if t2.Revision != "HEAD" || strings.Join(t2.Editable, ",") != "*.go" || t2.Repairs != 3 {
		t.Fatalf("t2 has not the environment's source with defaults: %+v", t2)
	}
	if tasks["olmo3/train-01"] == nil || tasks["olmo3/train-01"].Source != nil {
		t.Fatalf("olmo3 has no source block, its tasks must have none: %+v", tasks["olmo3/train-01"])
	}
	if p.Hash == without.Hash {
		t.Fatal("a source block left the plan hash unchanged")
	}
	// Each candidate may be built 1 + repairs times: the estimate's high
	// figure of builder calls grows with the source's repairs.
	hi := func(p *plan.Plan) float64 {
		var n float64
		for _, ph := range p.Variants[0].Phases {
			n += ph.Calls.LLM["builder"].High
		}
		return n
	}
	if hi(p) <= hi(without) {
		t.Fatalf("builder calls high %g with repairs = 3, %g without a source", hi(p), hi(without))
	}
}

func TestSourceErrors(t *testing.T) {
	dir := t.TempDir()
	gitSeed(t, dir, "seed")
	if err := os.MkdirAll(filepath.Join(dir, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := readBase(t)
	tests := []struct {
		name, block, code, msg string
		line                   int // line inside the block
	}{
		{"no editable", `repository = "seed"`, CodeMissing, "source.editable is missing", 0},
		{"no repository", `editable = ["*.go"]`, CodeMissing, "source.repository is missing", 0},
		{"empty build argument", "repository = \"seed\"\n    editable = [\"*.go\"]\n    build = [\"go\", \"\"]", CodeSource, "build[1] is empty", 3},
		{"repairs too many", "repository = \"seed\"\n    editable = [\"*.go\"]\n    repairs = 11", CodeRange, "between 0 and 10", 3},
		{"editable leaves", "repository = \"seed\"\n    editable = [\"../x.go\"]", CodeSource, "leaves the repository", 2},
		{"editable absolute", "repository = \"seed\"\n    editable = [\"/x.go\"]", CodeSource, "is absolute", 2},
		{"not a repository", "repository = \"plain\"\n    editable = [\"*.go\"]", CodeSourceRepo, "not a git repository", 1},
		{"no such directory", "repository = \"nowhere\"\n    editable = [\"*.go\"]", CodeSourceRepo, "nowhere", 1},
		{"no such revision", "repository = \"seed\"\n    revision = \"v9\"\n    editable = [\"*.go\"]", CodeSourceRepo, `revision "v9" names no commit`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, line := mutate(t, base, `  task "t1" {`, "  source {\n    "+tc.block+"\n  }\n  task \"t1\" {")
			_, ds := compileAt(t, dir, src)
			for _, d := range ds {
				if d.Code == tc.code && strings.Contains(d.Summary, tc.msg) {
					if tc.line > 0 && d.Range.Start.Line != line+tc.line {
						t.Fatalf("%s at line %d, want %d", d.Summary, d.Range.Start.Line, line+tc.line)
					}
					if !d.Range.Valid() {
						t.Fatalf("no position: %s", d.Summary)
					}
					return
				}
			}
			t.Fatalf("want %s %q, got:\n%s", tc.code, tc.msg, ds.Format(0))
		})
	}
}

// Every source field changes the plan: proven here, since no spec in
// specs/ names a repository of this machine.
func init() {
	values := map[string][2]string{
		"repository":     {`"seed"`, `"other"`},
		"revision":       {`"HEAD"`, `"main"`},
		"editable":       {`["*.go"]`, `["model/*.go"]`},
		"build":          {`["go", "vet", "."]`, `["make"]`},
		"repairs":        {`1`, `4`},
		"keep_worktrees": {`false`, `true`},
	}
	for field, v := range values {
		specialFields["environment.*.source."+field] = proveSourceField(field, v, false)
		specialFields["environment.*.task.*.source."+field] = proveSourceField(field, v, true)
	}
}

func proveSourceField(field string, v [2]string, onTask bool) func(t *testing.T) {
	return func(t *testing.T) {
		var hashes []string
		for _, val := range v {
			block := map[string]string{"repository": `"seed"`, "editable": `["*.go"]`}
			block[field] = val
			var b strings.Builder
			for _, k := range []string{"repository", "revision", "editable", "build", "repairs", "keep_worktrees"} {
				if x, ok := block[k]; ok {
					b.WriteString("    " + k + " = " + x + "\n")
				}
			}
			src := readBase(t)
			if onTask {
				src, _ = mutate(t, src, "    scale = 0.02\n  }\n  task \"t2\"", "    scale = 0.02\n    source {\n"+b.String()+"    }\n  }\n  task \"t2\"")
			} else {
				src, _ = mutate(t, src, `  task "t1" {`, "  source {\n"+b.String()+"  }\n  task \"t1\" {")
			}
			p, ds := compileSource(t, "base.hcl", []byte(src))
			if ds.HasErrors() {
				t.Fatalf("%s = %s: %s", field, val, ds.Format(0))
			}
			hashes = append(hashes, p.Hash)
		}
		if hashes[0] == hashes[1] {
			t.Fatalf("source.%s = %s and = %s give the same plan", field, v[0], v[1])
		}
	}
}

// A source's build gets the job environment of its environment's trainer,
// as the plan states it: the base variables every job inherits, and a
// command trainer's pass_env (inherited) and env (set); nothing else.
func TestSourceBuildEnv(t *testing.T) {
	dir := t.TempDir()
	gitSeed(t, dir, "seed")
	src, _ := mutate(t, readBase(t), `  task "t1" {`, mdmSource)
	build := func(src string) *plan.Source {
		t.Helper()
		p, ds := compileAt(t, dir, src)
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		for _, e := range p.Variants[0].Envs {
			if e.Name == "mdm" {
				return e.Tasks[0].Source
			}
		}
		t.Fatal("no mdm environment")
		return nil
	}
	if s := build(src); !slices.Equal(s.BuildInherits, pluginconfig.JobBaseEnv) || len(s.BuildEnv) != 0 {
		t.Errorf("a tinylm environment's build inherits %q and is set %q, want the base variables alone", s.BuildInherits, s.BuildEnv)
	}
	cmd := `plugin "cmd" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    command      = "go run ."
    metric_regex = "loss=([0-9.]+)"
    pass_env     = ["GOFLAGS", "PATH"]
    env          = { GOWORK = "off", CGO_ENABLED = 0 }
  }
}

executor {
  kind = "local"
  gpus = 8
}

environment "mdm" {
  family  = "diffusion"
  trainer = plugin.cmd`
	src, _ = mutate(t, src, "environment \"mdm\" {\n  family  = \"diffusion\"\n  trainer = plugin.tinylm", cmd)
	s := build(src)
	if want := append(slices.Clone(pluginconfig.JobBaseEnv), "GOFLAGS"); !slices.Equal(s.BuildInherits, want) {
		t.Errorf("the build inherits %q, want %q", s.BuildInherits, want)
	}
	if want := []string{"CGO_ENABLED=0", "GOWORK=off"}; !slices.Equal(s.BuildEnv, want) {
		t.Errorf("the build is set %q, want %q", s.BuildEnv, want)
	}
}
