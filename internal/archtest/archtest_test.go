package archtest

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/assay-lang/assay"

// under reports whether pkg is p or below it; everything covers every
// package of Assay.
func under(pkg, p string) bool {
	if p == everything {
		return isOwn(pkg)
	}
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

func underAny(pkg string, ps []string) bool {
	for _, p := range ps {
		if under(pkg, p) {
			return true
		}
	}
	return false
}

// isOwn reports whether a repo-relative import path is one of Assay's
// packages (it begins with a home) rather than the standard library's or a
// third-party module's.
func isOwn(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	for _, h := range homes {
		if first == h.dir {
			return true
		}
	}
	return false
}

func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && !isOwn(imp)
}

// covers reports whether the rule applies to pkg.
func (r rule) covers(pkg string) bool { return under(pkg, r.from) && !underAny(pkg, r.except) }

// bans reports whether the rule forbids reaching imp.
func (r rule) bans(imp string) bool { return underAny(imp, r.forbid) && !underAny(imp, r.allowed) }

// violations checks a package graph (repo-relative package -> imports, with
// module-internal imports repo-relative and others as written) against the
// rules, the owners and the plan's own rule.
func violations(graph map[string][]string) []string {
	paths := reachAll(graph)
	var out []string
	for pkg, imps := range graph {
		for _, imp := range imps {
			for _, r := range rules {
				if r.covers(pkg) {
					out = append(out, ruleViolations(r, pkg, imp, paths[imp])...)
				}
			}
			if o, ok := ownerOf(imp); ok && !under(pkg, o.pkg) && !underAny(pkg, o.by) {
				out = append(out, pkg+" imports "+imp+": "+o.why)
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

// ownerOf returns the most specific owner of pkg.
func ownerOf(pkg string) (owner, bool) {
	var best owner
	found := false
	for _, o := range owners {
		if under(pkg, o.pkg) && (!found || len(o.pkg) > len(best.pkg)) {
			best, found = o, true
		}
	}
	return best, found
}

// ruleViolations checks one import of a package the rule covers: the
// import itself, and, when the import leaves the rule's packages, every
// package it reaches. An import that stays inside is not followed, since
// the imported package is checked on its own. Of a chain, only the first
// banned package is named: the rest follow from it.
func ruleViolations(r rule, pkg, imp string, reach map[string][]string) []string {
	if r.bans(imp) {
		return []string{pkg + " imports " + imp + ": " + r.why}
	}
	if r.covers(imp) {
		return nil
	}
	var out []string
	for _, far := range sortedKeys(reach) {
		if r.bans(far) && !slices.ContainsFunc(reach[far][:len(reach[far])-1], r.bans) {
			out = append(out, pkg+" imports "+imp+", which reaches "+far+" ("+strings.Join(reach[far], " -> ")+"): "+r.why)
		}
	}
	return out
}

// reachAll returns, for each package of the graph, every package it
// reaches through imports with one shortest path to it (starting at the
// package itself). Breadth first over sorted imports, so paths are stable.
func reachAll(graph map[string][]string) map[string]map[string][]string {
	all := map[string]map[string][]string{}
	for pkg := range graph {
		seen := map[string][]string{pkg: {pkg}}
		queue := []string{pkg}
		for len(queue) > 0 {
			at := queue[0]
			queue = queue[1:]
			imps := append([]string(nil), graph[at]...)
			sort.Strings(imps)
			for _, imp := range imps {
				if _, ok := seen[imp]; ok {
					continue
				}
				seen[imp] = append(append([]string(nil), seen[at]...), imp)
				queue = append(queue, imp)
			}
		}
		delete(seen, pkg)
		all[pkg] = seen
	}
	return all
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

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
	for _, must := range []string{"lang/spec", "compiler/plan", "plugins", "base/version", "features/runcompare", "features/rehearse"} {
		if _, ok := graph[must]; !ok {
			t.Fatalf("package %s not found; is the walk broken?", must)
		}
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

func TestEveryPackageHasAHome(t *testing.T) {
	for pkg := range repoGraph(t) {
		if !isOwn(pkg) {
			t.Errorf("package %q lies in no home of internal/archtest; give its directory a home and a rule", pkg)
		}
	}
}
