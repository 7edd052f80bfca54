package archtest

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// house is a miniature of Assay's import graph that keeps every rule.
func house() map[string][]string {
	return map[string][]string{
		"base/version":                  nil,
		"base/stats":                    {"math"},
		"lang/diag":                     nil,
		"lang/spec":                     {"lang/diag"},
		"lang/formula":                  {"lang/diag"},
		"lang/hcl":                      {"lang/spec", "stdlib"},
		"lang/cue":                      {"lang/spec"},
		"lang/load":                     {"lang/hcl", "lang/cue"},
		"stdlib":                        {"lang/spec"},
		"stdlib/pluginconfig":           nil,
		"compiler":                      {"lang/spec", "lang/formula", "compiler/plan", "stdlib"},
		"compiler/plan":                 {"lang/diag", "encoding/json"},
		"compiler/estimate":             {"compiler/plan"},
		"runtime":                       {"compiler/plan", "lang/formula", "plugins", "runtime/journal"},
		"runtime/journal":               {"plugins"},
		"runtime/compare":               {"runtime", "base/stats"},
		"plugins":                       nil,
		"plugins/sdk":                   {"plugins"},
		"plugins/host":                  {"plugins", "plugins/sdk", "base/version", "stdlib/pluginconfig"},
		"plugins/builtin":               {"plugins/builtin/openai"},
		"plugins/builtin/openai":        {"plugins", "stdlib/pluginconfig"},
		"lsp":                           {"lang/load", "compiler", "compiler/estimate"},
		"features/runcompare":           {"compiler", "compiler/estimate", "runtime"},
		"features/rehearse":             {"features/runcompare", "lang/load", "runtime"},
		"cmd/assay":                     {"lang/load", "compiler", "runtime", "plugins/host", "plugins/builtin", "features/rehearse", "lsp", "base/version"},
		"internal/gendocs":              {"features/rehearse", "lang/hcl"},
		"examples/plugin/echotrainer":   {"plugins", "plugins/sdk"},
		"examples/trainer/tinylm-train": {"plugins/builtin/openai"},
	}
}

// TestPlantedImportsFail plants one forbidden import at a time into a house
// that keeps the rules, and checks that exactly the expected violation shows.
func TestPlantedImportsFail(t *testing.T) {
	if v := violations(house()); len(v) != 0 {
		t.Fatalf("the clean house breaks rules:\n%s", strings.Join(v, "\n"))
	}
	cases := []struct {
		name, from, imp string
		want            []string // prefixes of the violations, sorted
	}{
		{"runtime reads the spec model", "runtime", "lang/spec",
			[]string{"runtime imports lang/spec:"}},
		{"a leaf imports a layer", "base/stats", "lang/diag",
			[]string{"base/stats imports lang/diag:"}},
		{"a leaf imports another leaf", "base/stats", "base/version",
			[]string{"base/stats imports base/version:"}},
		{"a plugin imports a feature", "plugins/builtin/openai", "features/runcompare", []string{
			"examples/trainer/tinylm-train imports plugins/builtin/openai, which reaches features/runcompare (plugins/builtin/openai -> features/runcompare):",
			"plugins/builtin/openai imports features/runcompare: features join",
			"plugins/builtin/openai imports features/runcompare: plugins see only",
		}},
		{"a plugin reaches the runtime through a leaf", "base/version", "runtime", []string{
			"base/version imports runtime:",
			"plugins/host imports base/version, which reaches runtime (base/version -> runtime): plugins see only",
		}},
		{"a plugin imports the compiler's plan", "plugins/host", "compiler/plan", []string{
			"plugins/host imports compiler/plan:",
		}},
		{"the runtime uses a feature", "runtime/compare", "features/runcompare", []string{
			"runtime/compare imports features/runcompare, which reaches compiler (features/runcompare -> compiler):",
			"runtime/compare imports features/runcompare, which reaches compiler/estimate (features/runcompare -> compiler/estimate):",
			"runtime/compare imports features/runcompare: features join",
		}},
		{"the language server uses a tool", "lsp", "internal/gendocs", []string{
			"lsp imports internal/gendocs, which reaches runtime (internal/gendocs -> features/rehearse -> runtime):",
			"lsp imports internal/gendocs: internal holds",
		}},
		{"a layer imports the command", "compiler", "cmd/assay", []string{
			"compiler imports cmd/assay, which reaches lsp (cmd/assay -> lsp):",
			"compiler imports cmd/assay: commands are the top",
			"compiler imports cmd/assay: the compiler works",
			"features/runcompare imports compiler, which reaches cmd/assay (compiler -> cmd/assay):",
			"lsp imports compiler, which reaches cmd/assay (compiler -> cmd/assay):",
		}},
		{"the loader imports the compiler", "lang/load", "compiler", []string{
			"lang/load imports compiler: front ends and the spec model come before",
		}},
		{"the runtime imports the plugin host", "runtime", "plugins/host", []string{
			"runtime imports plugins/host: the runtime uses plugins through the interface",
		}},
		{"the runtime imports a built-in plugin", "runtime", "plugins/builtin/openai", []string{
			"runtime imports plugins/builtin/openai: the runtime uses plugins through the interface",
		}},
		{"the journal imports the plugin SDK", "runtime/journal", "plugins/sdk", []string{
			"runtime/journal imports plugins/sdk: the runtime uses plugins through the interface",
		}},
		{"the runtime reaches the host through a leaf", "base/stats", "plugins/host", []string{
			"base/stats imports plugins/host:",
			"runtime/compare imports base/stats, which reaches plugins/host (base/stats -> plugins/host): the runtime uses plugins",
		}},
		{"an example reaches the runtime", "examples/plugin/echotrainer", "runtime/journal", []string{
			"examples/plugin/echotrainer imports runtime/journal:",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := house()
			g[c.from] = append(slices.Clone(g[c.from]), c.imp)
			got := violations(g)
			if len(got) != len(c.want) {
				t.Fatalf("got %d violations, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for i := range c.want {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("violation %d = %q, want prefix %q", i, got[i], c.want[i])
				}
			}
		})
	}
}

// TestPlantedImportFailsOnTheRepository plants into the real graph the
// imports the rules once let through (a built-in plugin importing
// runcompare, which reaches the runtime and the compiler; the loader
// importing the compiler; the runtime importing the plugin host or a
// built-in plugin), and a leaf that imports the runtime, which the plugin
// host would then reach.
func TestPlantedImportFailsOnTheRepository(t *testing.T) {
	for _, c := range []struct{ from, imp, want string }{
		{"plugins/builtin/openai", "features/runcompare", "plugins/builtin/openai imports features/runcompare: plugins see only"},
		{"base/version", "runtime", "plugins/host imports base/version, which reaches runtime (base/version -> runtime): plugins see only"},
		{"base/version", "runtime", "base/version imports runtime: base holds leaves"},
		{"lang/load", "compiler", "lang/load imports compiler: front ends and the spec model come before"},
		{"runtime", "plugins/host", "runtime imports plugins/host: the runtime uses plugins through the interface"},
		{"runtime", "plugins/builtin/tinylm/model", "runtime imports plugins/builtin/tinylm/model: the runtime uses plugins through the interface"},
	} {
		g := maps.Clone(repoGraph(t))
		g[c.from] = append(slices.Clone(g[c.from]), c.imp)
		got := violations(g)
		if !slices.ContainsFunc(got, func(v string) bool { return strings.HasPrefix(v, c.want) }) {
			t.Errorf("planting %s -> %s: no violation %q in:\n%s", c.from, c.imp, c.want, strings.Join(got, "\n"))
		}
	}
}
