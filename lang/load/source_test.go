package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/lang/spec"
)

// TestSourceBlockFrontEnds reads one source block, with its lists of
// strings, through HCL, CUE, JSON and YAML, and through Write to each
// language and back: every path gives the same tree.
func TestSourceBlockFrontEnds(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"s.hcl": `environment "e" {
  source {
    repository     = "repo"
    revision       = "main"
    editable       = ["train/*.go", "model.go"]
    build          = ["go", "vet", "./..."]
    repairs        = 3
    keep_worktrees = true
  }
  task "t" {
    source {
      editable = "only.go"
    }
  }
}
`,
		"s.cue": `environment: e: {
	source: {repository: "repo", revision: "main", editable: ["train/*.go", "model.go"], build: ["go", "vet", "./..."], repairs: 3, keep_worktrees: true}
	task: t: source: editable: "only.go"
}
`,
		"s.json": `{"environment": {"e": {"source": {"repository": "repo", "revision": "main", "editable": ["train/*.go", "model.go"],
  "build": ["go", "vet", "./..."], "repairs": 3, "keep_worktrees": true}, "task": {"t": {"source": {"editable": "only.go"}}}}}}
`,
		"s.yaml": `environment:
  e:
    source:
      repository: repo
      revision: main
      editable: ["train/*.go", "model.go"]
      build: [go, vet, ./...]
      repairs: 3
      keep_worktrees: true
    task:
      t:
        source:
          editable: only.go
`,
	}
	var want map[string]any
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _, ds := Load(p, Options{})
		if ds.HasErrors() {
			t.Fatalf("%s: %s", name, ds.Format(0))
		}
		env := s.Environments[0]
		if got := env.Source.Build.V; len(got) != 3 || got[2] != "./..." {
			t.Fatalf("%s: build = %q", name, got)
		}
		if got := env.TaskList[0].Source.Editable.V; len(got) != 1 || got[0] != "only.go" {
			t.Fatalf("%s: one string is a one-element list, got %q", name, got)
		}
		tree := spec.Tree(s)
		if want == nil {
			want = tree
		} else if d := cmp.Diff(want, tree); d != "" {
			t.Fatalf("%s: tree differs (-first +this):\n%s", name, d)
		}
		for _, ext := range []string{".hcl", ".cue"} {
			out := filepath.Join(dir, "w-"+name+ext)
			b, ds := Write(s, out)
			if ds.HasErrors() {
				t.Fatal(ds.Format(0))
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
			back, _, ds := Load(out, Options{})
			if ds.HasErrors() {
				t.Fatalf("%s through %s: %s\n%s", name, ext, ds.Format(0), b)
			}
			if d := cmp.Diff(want, spec.Tree(back)); d != "" {
				t.Fatalf("%s through %s (-want +got):\n%s\n%s", name, ext, d, b)
			}
		}
	}
}

// TestSourceListTypeErrors: a list of strings refuses numbers, in each
// front end, with the position of the value.
func TestSourceListTypeErrors(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bad.hcl": "environment \"e\" {\n  source {\n    build = [\"go\", 1]\n  }\n}\n",
		"bad.cue": "environment: e: source: build: [\"go\", 1]\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, ds := Load(p, Options{})
		if !ds.HasErrors() {
			t.Fatalf("%s: a number in build was accepted", name)
		}
		if r := ds[0].Range; r.Start.Line == 0 {
			t.Fatalf("%s: no position: %s", name, ds.Format(0))
		}
	}
}
