package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

// A task suite's evaluation commands run only through builtin:command, and
// validate checks that trainer's config as a suite task's run receives it
// (task_command set): a suite under another trainer, or a config that
// says nowhere where the metric is, is refused at a position.
func TestSuiteTrainer(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "specs", "laptop", "suite.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := filepath.Abs(filepath.Join("..", "examples", "suite", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	spec := strings.Replace(string(src), `"../../examples/suite/suite.json"`, `"`+manifest+`"`, 1)
	cases := []struct{ name, old, new, code, at string }{
		{"as it is", "", "", "", ""},
		{"another trainer", `source = "builtin:command"`, "source = \"builtin:tinylm\"\n  config = { steps = 10 }\n}\nplugin \"unused\" {\n  kind = \"trainer\"\n  source = \"builtin:command\"", CodeSuiteTrainer, "s.hcl:60:13"},
		{"no metric", `metric_regex          = "(?m)^val_loss=([0-9.eE+-]+)$"`, "", CodeMissing, "s.hcl:23:12"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := spec
			if c.old != "" {
				if !strings.Contains(text, c.old) {
					t.Fatalf("the spec has no %q", c.old)
				}
				text = strings.Replace(text, c.old, c.new, 1)
			}
			path := filepath.Join(t.TempDir(), "s.hcl")
			os.WriteFile(path, []byte(text), 0o644)
			s, _, ds := load.Load(path, load.Options{})
			if ds.HasErrors() {
				t.Fatal(ds.Format(0))
			}
			p, ds := Compile(s, Options{})
			if c.code == "" {
				if ds.HasErrors() || p == nil {
					t.Fatal(ds.Format(0))
				}
				return
			}
			for _, d := range ds {
				if d.Code == c.code && strings.HasPrefix(filepath.Base(d.Range.String()), c.at) {
					return
				}
			}
			t.Errorf("want %s at %s; got\n%s", c.code, c.at, ds.Format(0))
		})
	}
}

// A suite task's scaffold is its seed program once the environment has a
// source block: the manifest gives the repository, revision and editable
// paths, the block its build and repairs and any field it overrides.
// Without a source block the suite stays in knob mode.
func TestSuiteSourceMode(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "specs", "laptop", "suite.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join("..", "examples", "suite", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	repo := gitSeed(t, dir, "seed")
	other := gitSeed(t, dir, "other")
	if err := os.WriteFile(filepath.Join(repo, "suite.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	knobs := strings.Replace(string(src), `"../../examples/suite/suite.json"`, `"seed/suite.json"`, 1)
	// In source mode the trainer has no knobs and no overrides file.
	spec := knobs
	for _, cut := range []string{knobs[strings.Index(knobs, "    knobs = {") : strings.Index(knobs, "    }\n  }\n}")+6], "    overrides_file        = \"overrides.json\"\n"} {
		spec = strings.Replace(spec, cut, "", 1)
	}
	block := "  trainer = plugin.suite\n  source {\n    build   = [\"go\", \"vet\", \".\"]\n    repairs = 1\n%s  }\n"
	compile := func(t *testing.T, text string) (map[string]*plan.Task, diag.Diagnostics) {
		path := filepath.Join(dir, "s.hcl")
		os.WriteFile(path, []byte(text), 0o644)
		s, _, ds := load.Load(path, load.Options{})
		if ds.HasErrors() {
			return nil, ds
		}
		p, ds := Compile(s, Options{CheckRepository: gitrepo.Check})
		if p == nil {
			return nil, ds
		}
		tasks := map[string]*plan.Task{}
		for _, tk := range p.Variants[0].Envs[0].Tasks {
			tasks[tk.Name] = tk
		}
		return tasks, ds
	}
	t.Run("knob mode", func(t *testing.T) {
		tasks, ds := compile(t, knobs)
		if ds.HasErrors() || tasks["spirals"].Source != nil || tasks["spirals"].Scaffold == nil {
			t.Fatalf("without a source block a suite task is in knob mode: %+v\n%s", tasks["spirals"], ds.Format(0))
		}
	})
	t.Run("source mode", func(t *testing.T) {
		tasks, ds := compile(t, strings.Replace(spec, "  trainer = plugin.suite\n", fmt.Sprintf(block, ""), 1))
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if len(ds) > 0 {
			t.Errorf("source mode with a trainer of its own: %s", ds.Format(0))
		}
		for name, tk := range tasks {
			s := tk.Source
			if s == nil || s.Repository != repo || s.Revision != "HEAD" || strings.Join(s.Editable, ",") != "train.go,model.go" ||
				strings.Join(s.Build, " ") != "go vet ." || s.Repairs != 1 || tk.Scaffold != nil {
				t.Errorf("task %s: source %+v, scaffold %+v", name, s, tk.Scaffold)
			}
		}
	})
	t.Run("override", func(t *testing.T) {
		tasks, ds := compile(t, strings.Replace(spec, "  trainer = plugin.suite\n", fmt.Sprintf(block, "    repository = \"other\"\n    editable = [\"main.go\"]\n"), 1))
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if s := tasks["moons"].Source; s == nil || s.Repository != other || strings.Join(s.Editable, ",") != "main.go" {
			t.Errorf("the source block does not override the scaffold: %+v", s)
		}
	})
	t.Run("not a repository", func(t *testing.T) {
		bad := strings.Replace(string(manifest), `"repository": "."`, `"repository": "../plain"`, 1)
		os.MkdirAll(filepath.Join(dir, "plain"), 0o755)
		os.WriteFile(filepath.Join(repo, "suite.json"), []byte(bad), 0o644)
		defer os.WriteFile(filepath.Join(repo, "suite.json"), manifest, 0o644)
		_, ds := compile(t, strings.Replace(spec, "  trainer = plugin.suite\n", fmt.Sprintf(block, ""), 1))
		for _, d := range ds {
			if d.Code == CodeSourceRepo && d.Range.Filename == filepath.Join(repo, "suite.json") && d.Range.Start.Line == 6 {
				return
			}
		}
		t.Errorf("want %s at the manifest's task entry; got\n%s", CodeSourceRepo, ds.Format(0))
	})
}

// The laptop suite's knob-mode trainer in source mode: its knobs, its
// overrides file and a {{config}} of its command are refused at its
// config, as the trainer would refuse them when it runs.
func TestSuiteSourceModeRefusesKnobs(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "specs", "laptop", "suite.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := filepath.Abs(filepath.Join("..", "examples", "suite", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `"../../examples/suite/suite.json"`, `"`+manifest+`"`, 1)
	text = strings.Replace(text, "  trainer = plugin.suite\n", "  trainer = plugin.suite\n  source {\n    build = [\"go\", \"vet\", \".\"]\n  }\n", 1)
	text = strings.Replace(text, `    overrides_file        = "overrides.json"`, `    overrides_file        = "overrides.json"`+"\n    command = \"go run . --config {{config}}\"", 1)
	path := filepath.Join(t.TempDir(), "s.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	_, ds = Compile(s, Options{})
	for _, w := range []string{
		"config.knobs: a source-mode trainer takes no knobs (activation, epochs",
		"config.command: line 1, column 19: {{config}}, knob mode's overrides file, has no value in source mode",
		"config.overrides_file: a setting of knob mode",
	} {
		found := false
		for _, d := range ds {
			if d.Code == CodeSourceKnobs && strings.Contains(d.Summary, w) && filepath.Base(d.Range.String()) == "s.hcl:23:12" {
				found = true
			}
		}
		if !found {
			t.Errorf("want %s %q at s.hcl:23:12; got\n%s", CodeSourceKnobs, w, ds.Format(0))
		}
	}
}
