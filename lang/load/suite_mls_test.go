package load

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The shipped MLS-Bench-Lite manifest is the critics paper's Table 13:
// 30 tasks in 12 domains with the paper's counts per domain, its marks
// (7 tasks used for critic SFT collection, 3 introduced only in critic
// GRPO, 20 held out), and rl-value-discrete unscored, so 29 tasks in 11
// domains are scored (Tables 2 and 15). What the paper gives is written;
// every other baseline, bound, evaluator and edit surface is a
// placeholder.
func TestMLSBenchLiteManifestIsThePapers(t *testing.T) {
	m, ds := ReadManifest(filepath.Join("..", "..", "specs", "suites", "mls-bench-lite.json"))
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	if len(m.Tasks) != 30 {
		t.Fatalf("%d tasks, want 30", len(m.Tasks))
	}
	table13 := map[string]int{
		"language-models": 3, "robotics": 5, "vision-and-generation": 3, "reinforcement-learning": 1,
		"ml-systems-and-efficient-ml": 3, "ai-for-science": 3, "optimization-and-theory": 2,
		"classical-and-adaptive-learning": 2, "deep-learning": 2, "time-series-and-forecasting": 3,
		"structured-and-causal-reasoning": 2, "trustworthy-learning": 1,
	}
	marks := map[string][]string{
		"sft":  {"cv-vae-loss", "dl-activation-function", "graph-generation", "ml-clustering-algorithm", "ml-dimensionality-reduction", "ts-exogenous-forecast", "ts-imputation"},
		"grpo": {"causal-discovery-discrete", "optimization-variance-reduction", "security-membership-inference-defense"},
	}
	domains := map[string]int{}
	scoredDomains := map[string]bool{}
	got := map[string][]string{}
	scored := 0
	for _, tk := range m.Tasks {
		domains[tk.Domain]++
		got[tk.CriticSplit] = append(got[tk.CriticSplit], tk.Name)
		if tk.Split != "train" || tk.Metric.Name != "combined_score" || tk.Metric.Direction != "maximize" {
			t.Errorf("%s: split %s, metric %s %s; want train, combined_score to maximize", tk.Name, tk.Split, tk.Metric.Name, tk.Metric.Direction)
		}
		if tk.Scaffold.Repository != tk.Name {
			t.Errorf("%s: scaffold %q, want its own directory of the checkout", tk.Name, tk.Scaffold.Repository)
		}
		if tk.Scored == nil || *tk.Scored {
			scored++
			scoredDomains[tk.Domain] = true
		} else if tk.Name != "rl-value-discrete" {
			t.Errorf("%s is unscored; only rl-value-discrete is", tk.Name)
		}
	}
	if fmt.Sprint(domains) != fmt.Sprint(table13) {
		t.Errorf("tasks per domain %v, want Table 13's %v", domains, table13)
	}
	if scored != 29 || len(scoredDomains) != 11 {
		t.Errorf("%d scored tasks in %d domains, want 29 in 11", scored, len(scoredDomains))
	}
	for mark, want := range marks {
		sort.Strings(got[mark])
		if strings.Join(got[mark], " ") != strings.Join(want, " ") {
			t.Errorf("critic_split %s: %v, want %v", mark, got[mark], want)
		}
	}
	if len(got["heldout"]) != 20 || len(got[""]) != 0 {
		t.Errorf("%d held out and %d unmarked, want 20 and 0", len(got["heldout"]), len(got[""]))
	}
	// What the paper gives (Appendix D, Table 4) is written; the rest is
	// left to fill.
	for _, tk := range m.Tasks {
		fields := map[string]bool{}
		for _, u := range tk.Unfilled {
			fields[u.Field] = true
		}
		want := "baseline bounds.high bounds.low evaluate scaffold.editable"
		if tk.Name == "dl-activation-function" {
			want = "bounds.high bounds.low evaluate"
			if tk.Baseline == nil || *tk.Baseline != 0.5997 || strings.Join(tk.Scaffold.Editable, " ") != "pytorch-vision/custom_activation.py" {
				t.Errorf("dl-activation-function: baseline %v, editable %v; want the paper's 0.5997 and pytorch-vision/custom_activation.py", tk.Baseline, tk.Scaffold.Editable)
			}
		}
		var have []string
		for f := range fields {
			have = append(have, f)
		}
		sort.Strings(have)
		if strings.Join(have, " ") != want {
			t.Errorf("%s: placeholders %v, want %s", tk.Name, have, want)
		}
	}
}

const fillSuite = `{
  "format": 1,
  "tasks": [
    {"name": "a", "domain": "cv", "split": "train", "critic_split": "heldout",
     "scaffold": {"repository": "a", "editable": {"fill": "the files"}},
     "evaluate": {"fill": "the evaluator"},
     "metric": {"name": "score", "direction": "maximize"},
     "baseline": {"fill": "the anchor"},
     "bounds": {"low": {"fill": "the worse bound"}, "high": 1}},
    {"name": "b", "domain": "cv", "split": "train", "scored": false,
     "scaffold": {"repository": "b", "editable": ["x.py"]},
     "evaluate": ["./eval"],
     "metric": {"name": "score", "direction": "maximize"},
     "baseline": 0.5, "bounds": {"low": 0, "high": 1}}
  ]
}
`

// A placeholder reads as absent and is listed with its position; the
// values given are read as they are.
func TestSuitePlaceholders(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"spec.hcl":     fmt.Sprintf(suiteSpec, `  suite_root = ""`+"\n"),
		"suite/s.json": fillSuite,
	})
	s, _ := mustLoad(t, filepath.Join(dir, "spec.hcl"), Options{})
	a, b := s.Environments[0].TaskList[0], s.Environments[0].TaskList[1]
	if a.Baseline.Set || a.Suite.Command != nil || a.Suite.Editable != nil || a.Suite.Dir != "" || a.Suite.CriticSplit != "heldout" || a.Suite.High != 1 {
		t.Errorf("task a %+v / %+v", a, a.Suite)
	}
	var fields []string
	for _, u := range a.Suite.Unfilled {
		fields = append(fields, fmt.Sprintf("%s@%d:%d", u.Field, u.At.Start.Line, u.At.Start.Column))
	}
	if got := strings.Join(fields, " "); got != "suite_root@4:16 baseline@8:18 bounds.low@9:24 evaluate@6:18 scaffold.editable@5:50" {
		t.Errorf("placeholders %s", got)
	}
	if !b.Suite.Unscored || !b.Baseline.Set || len(b.Suite.Unfilled) != 1 {
		t.Errorf("task b %+v / %+v", b, b.Suite)
	}
}

// What a manifest or a spec gets wrong about placeholders, the checkout
// and the tasks left out is refused where it is written.
func TestSuitePlaceholderErrors(t *testing.T) {
	for _, c := range []struct {
		name, manifest, env, want string
	}{
		{"empty fill", strings.Replace(fillSuite, `{"fill": "the anchor"}`, `{"fill": ""}`, 1), "", "s.json:8:27: error[E_SUITE]: tasks[0].baseline.fill is not a text"},
		{"object without fill", strings.Replace(fillSuite, `{"fill": "the anchor"}`, `{}`, 1), "", "s.json:8:18: error[E_SUITE]: tasks[0].baseline is an object without fill"},
		{"other key", strings.Replace(fillSuite, `{"fill": "the anchor"}`, `{"fil": "x"}`, 1), "", `unknown key "fil" in tasks[].baseline`},
		{"fill where none may be", strings.Replace(fillSuite, `"domain": "cv", "split": "train", "critic_split"`, `"domain": {"fill": "x"}, "split": "train", "critic_split"`, 1), "", "tasks[0].domain"},
		{"bad critic split", strings.Replace(fillSuite, `"heldout"`, `"test"`, 1), "", `tasks[0].critic_split is "test"; want sft, grpo or heldout`},
		{"unknown exclude", fillSuite, `  suite_exclude = ["c"]` + "\n", `spec.hcl:5:19: error[E_SUITE]: suite_exclude names "c", which the suite suite/s.json does not list`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				"spec.hcl":     fmt.Sprintf(suiteSpec, `  suite_root = ""`+"\n"+c.env),
				"suite/s.json": c.manifest,
			})
			_, _, ds := Load(filepath.Join(dir, "spec.hcl"), Options{})
			if !strings.Contains(ds.Format(0), c.want) {
				t.Errorf("diagnostics lack %q:\n%s", c.want, ds.Format(0))
			}
		})
	}
	dir := writeFiles(t, map[string]string{"spec.hcl": "environment \"e\" {\n  suite_root = \"x\"\n}\n"})
	_, _, ds := Load(filepath.Join(dir, "spec.hcl"), Options{})
	if !strings.Contains(ds.Format(0), `spec.hcl:2:16: error[E_SUITE]: environment "e" sets suite_root but names no suite`) {
		t.Errorf("suite_root without a suite:\n%s", ds.Format(0))
	}
}
