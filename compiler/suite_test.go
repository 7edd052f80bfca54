package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
