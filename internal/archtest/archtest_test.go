package archtest

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/assay-lang/assay"

// rule forbids packages under from (the package itself or below) to import
// anything under the listed prefixes, unless the import is under an allowed
// prefix.
type rule struct {
	from    string
	except  []string // packages under from that the rule does not cover
	forbid  []string
	allowed []string
	why     string
}

var rules = []rule{
	{from: "lang", except: []string{"lang/load"}, forbid: []string{"compiler", "runtime", "plugins", "cmd"},
		why: "front ends and the spec model come before the compiler, runtime and plugins"},
	{from: "lang/hcl", forbid: []string{"lang/cue"}, why: "front ends never import each other; they meet in lang/spec"},
	{from: "lang/cue", forbid: []string{"lang/hcl"}, why: "front ends never import each other; they meet in lang/spec"},
	{from: "compiler", forbid: []string{"runtime", "plugins", "cmd", "lang/load", "lang/hcl", "lang/cue"},
		why: "the compiler works on the syntax-neutral spec and never runs anything"},
	{from: "plugins", forbid: []string{"lang", "compiler", "runtime", "cmd"},
		why: "plugins see only the plugin protocol"},
	{from: "runtime", forbid: []string{"lang/hcl", "lang/cue", "lang/load", "compiler", "cmd"}, allowed: []string{"compiler/plan"},
		why: "the runtime executes a compiled plan; it never reads specs"},
	{from: "stdlib", forbid: []string{"compiler", "runtime", "plugins", "cmd", "lang/hcl", "lang/cue", "lang/load"},
		why: "stdlib is imported by front ends and the compiler"},
	{from: "lsp", forbid: []string{"runtime", "plugins", "cmd"},
		why: "the language server reads specs and compiles them; it never runs anything"},
	{from: "lang", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "compiler", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "runtime", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "plugins", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "stdlib", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "stdlib/pluginconfig", forbid: []string{"lang", "stdlib", "compiler", "runtime", "plugins", "cmd"},
		why: "plugins import the built-in config schemas, and plugins see only the plugin protocol"},
}

// under reports whether pkg is p or below it.
func under(pkg, p string) bool { return pkg == p || strings.HasPrefix(pkg, p+"/") }

func underAny(pkg string, ps []string) bool {
	for _, p := range ps {
		if under(pkg, p) {
			return true
		}
	}
	return false
}

// violations checks a package graph (repo-relative package -> imports, with
// module-internal imports repo-relative and others as written) against the rules.
func violations(graph map[string][]string) []string {
	var out []string
	for pkg, imps := range graph {
		for _, imp := range imps {
			for _, r := range rules {
				if !under(pkg, r.from) || underAny(pkg, r.except) {
					continue
				}
				if underAny(imp, r.forbid) && !underAny(imp, r.allowed) {
					out = append(out, pkg+" imports "+imp+": "+r.why)
				}
			}
		}
		// The plan is plain data: the standard library and diagnostics only.
		if under(pkg, "compiler/plan") {
			for _, imp := range imps {
				if imp != "lang/diag" && imp != "lang/formula/tree" && !isStd(imp) {
					out = append(out, pkg+" imports "+imp+": compiler/plan may import only lang/diag, lang/formula/tree and the standard library")
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && !underAny(imp, topDirs)
}

// topDirs are the module's top-level package directories, in repo-relative form.
var topDirs = []string{"cmd", "compiler", "examples", "internal", "lang", "lsp", "plugins", "runtime", "stdlib"}

// repoGraph reads the imports of every package of the module from source.
func repoGraph(t *testing.T) map[string][]string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		if err != nil {
			return nil // no buildable Go files here
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		var imps []string
		for _, imp := range pkg.Imports {
			// Only Assay's own packages take part in the flow; keeping other
			// imports would confuse e.g. the standard library's runtime/metrics
			// with Assay's runtime.
			if under(imp, module) {
				imps = append(imps, strings.TrimPrefix(strings.TrimPrefix(imp, module), "/"))
			}
		}
		graph[rel] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

func TestImportsFlowOneWay(t *testing.T) {
	graph := repoGraph(t)
	for _, must := range []string{"lang/spec", "compiler/plan", "plugins"} {
		if _, ok := graph[must]; !ok {
			t.Fatalf("package %s not found; is the walk broken?", must)
		}
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// TestRulesCatchViolations checks the checker itself on a made-up graph.
func TestRulesCatchViolations(t *testing.T) {
	graph := map[string][]string{
		"lang/hcl":            {"lang/cue", "lang/spec"},
		"lang/load":           {"lang/hcl", "lang/cue"},
		"lang/spec":           {"compiler/plan"},
		"compiler":            {"runtime"},
		"compiler/plan":       {"encoding/json", "lang/spec", "github.com/x/y"},
		"plugins/host":        {"plugins", "lang/diag"},
		"runtime":             {"compiler/plan", "compiler/estimate", "lang/hcl"},
		"runtime/journal":     {"database/sql"},
		"cmd/assay":           {"lang/load", "runtime", "compiler"},
		"plugins/builtin":     {"plugins/sdk"},
		"compiler/resolve":    {"lang/spec", "plugins/payload"},
		"stdlib/pluginconfig": {"lang/diag"},
		"lsp":                 {"lang/load", "compiler", "compiler/estimate", "runtime"},
		"compiler/estimate":   {"compiler/plan", "lsp"},
	}
	got := violations(graph)
	want := []string{
		"compiler imports runtime",
		"compiler/estimate imports lsp",
		"compiler/plan imports github.com/x/y",
		"compiler/plan imports lang/spec",
		"compiler/resolve imports plugins/payload",
		"lang/hcl imports lang/cue",
		"lang/spec imports compiler/plan",
		"lsp imports runtime",
		"plugins/host imports lang/diag",
		"runtime imports compiler/estimate",
		"runtime imports lang/hcl",
		"stdlib/pluginconfig imports lang/diag",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]+":") {
			t.Errorf("violation %d = %q, want %q", i, got[i], want[i])
		}
	}
}
