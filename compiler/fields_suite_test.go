package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/load/loadtest"
)

// compileOpenEvolve compiles a copy of specs/openevolve.hcl (its bases and
// manifest with it) after edit changes its common/mls-bench-lite.hcl,
// with vars, checking imports as validate does (a missing directory is
// refused).
func compileOpenEvolve(t *testing.T, edit func(string) string, vars ...string) (string, []string, error) {
	t.Helper()
	dir := t.TempDir()
	files := loadtest.CopySpec(t, filepath.Join("..", "specs", "openevolve.hcl"), dir)
	common := filepath.Join(dir, "common", "mls-bench-lite.hcl")
	if edit != nil {
		b, err := os.ReadFile(common)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(common, []byte(edit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _, ds := load.Load(files[0], load.Options{Vars: vars})
	if ds.HasErrors() {
		return "", nil, ds
	}
	p, cds := Compile(s, Options{CheckImport: func(dir string, _ []string, _ string) error {
		if _, err := os.Stat(dir); err != nil {
			return err
		}
		return nil
	}})
	if cds.HasErrors() {
		return "", nil, cds
	}
	var missing []string
	for _, d := range Unready(p) {
		missing = append(missing, d.Summary+" | "+d.Detail)
	}
	return p.Hash, missing, nil
}

// suite_root names the checkout: empty, check and run refuse it, naming
// the variable; a directory, each task's scaffold is looked for there.
func proveSuiteRoot(t *testing.T) {
	_, missing, err := compileOpenEvolve(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) == 0 || !strings.Contains(missing[0], "suite_root is empty") || !strings.Contains(missing[0], "-var mls_bench_root=DIR") {
		t.Fatalf("without a checkout, Unready = %q; want the empty suite_root first, naming -var mls_bench_root", missing)
	}
	root := t.TempDir()
	_, _, err = compileOpenEvolve(t, nil, "mls_bench_root="+root)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "llm-pretrain-optimizer")) {
		t.Fatalf("with an empty checkout, compile = %v; want each task's directory in it refused", err)
	}
	for _, task := range []string{"llm-pretrain-optimizer", "dl-activation-function"} {
		if err := os.MkdirAll(filepath.Join(root, task), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = compileOpenEvolve(t, nil, "mls_bench_root="+root)
	if err == nil || strings.Contains(err.Error(), filepath.Join(root, "llm-pretrain-optimizer")+":") {
		t.Fatalf("with two tasks' directories, compile = %v; want the others refused and not these", err)
	}
}

// suite_exclude leaves rl-value-discrete out: without it the suite's 30
// tasks run; a name the manifest lacks is refused.
func proveSuiteExclude(t *testing.T) {
	line := `suite_exclude = ["rl-value-discrete"]`
	h29, _, err := compileOpenEvolve(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	h30, _, err := compileOpenEvolve(t, func(s string) string {
		if !strings.Contains(s, line) {
			t.Fatalf("common/mls-bench-lite.hcl has no %s", line)
		}
		return strings.Replace(s, line, "", 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if h29 == h30 {
		t.Error("leaving rl-value-discrete in left the plan hash unchanged")
	}
	_, _, err = compileOpenEvolve(t, func(s string) string { return strings.Replace(s, line, `suite_exclude = ["rl-value-discreet"]`, 1) })
	if err == nil || !strings.Contains(err.Error(), `did you mean "rl-value-discrete"`) {
		t.Errorf("a misspelt name compiles: %v", err)
	}
}

// A variable's supply is what check and run say while it is empty; a
// value given, nothing is missing.
func proveSupply(t *testing.T) {
	dir := t.TempDir()
	spec := readBase(t) + `
variable "program" {
  type   = string
  default = ""
  supply = "the path of your program"
}
`
	path := withSource(t, dir, "a.hcl", spec)
	for _, c := range []struct {
		vars []string
		want bool
	}{{nil, true}, {[]string{"program=/bin/true"}, false}} {
		s, _, ds := load.Load(path, load.Options{Vars: c.vars})
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		p, cds := Compile(s, Options{})
		if cds.HasErrors() {
			t.Fatal(cds.Format(0))
		}
		ds = Unready(p)
		got := len(ds) == 1 && strings.Contains(ds[0].Detail, "the path of your program") && ds[0].Code == CodeUnsupplied
		if got != c.want {
			t.Errorf("vars %v: Unready = %v; want it to name the supply: %v", c.vars, ds, c.want)
		}
	}
	withSource(t, dir, "n.hcl", strings.Replace(spec, "type   = string\n  default = \"\"", "type   = number\n  default = 1", 1))
	if _, ds := hashOfFile(t, filepath.Join(dir, "n.hcl")); ds == nil || !strings.Contains(ds.Error(), CodeNotApplicable) {
		t.Errorf("supply on a number variable: %v; want %s", ds, CodeNotApplicable)
	}
}

// A benchmark plugin of the user's own: its reference and its config are
// the plan's.
func proveBenchmark(t *testing.T) {
	dir := t.TempDir()
	base := readBase(t) + `
plugin "bench" {
  kind   = "benchmark"
  source = "./bin/bench"
  config = { args = ["--scored-only"] }
}

plugin "other" {
  kind   = "benchmark"
  source = "./bin/other"
}
`
	withBench := strings.Replace(base, "  trainer  = plugin.tinylm\n  baseline = 0.98", "  trainer  = plugin.tinylm\n  benchmark = plugin.bench\n  baseline = 0.98", 1)
	if withBench == base {
		t.Fatal("base.hcl's olmo3 environment has no trainer line to add a benchmark after")
	}
	h := map[string]string{}
	for name, src := range map[string]string{
		"bench":  withBench,
		"other":  strings.Replace(withBench, "benchmark = plugin.bench", "benchmark = plugin.other", 1),
		"config": strings.Replace(withBench, `"--scored-only"`, `"--all"`, 1),
	} {
		hash, ds := hashOfFile(t, withSource(t, dir, name+".hcl", src))
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		h[name] = hash
	}
	if h["bench"] == h["other"] || h["bench"] == h["config"] {
		t.Errorf("another benchmark or config left the plan hash unchanged: %v", h)
	}
}
