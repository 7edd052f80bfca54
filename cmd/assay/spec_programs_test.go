package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/plugins/host"
)

// TestSpecProgramsExistOrAreSupplied holds the example specs of specs/ (not
// specs/laptop, whose plugins are all built in) to saying exactly what a
// user supplies. The rule, kept simple so it can be honest:
//
//   - The programs a spec names are the path of every plugin whose source
//     is not built in, and the program of every command in a plugin config
//     (command, update_command, task_command) and of every source block's
//     build: its first word or, after an interpreter (python, python3, sh,
//     bash, node, `go run`), the first word after it that is not a flag.
//   - Only a relative path counts: a word with a slash (./train.sh,
//     ./bin/x) or a .py, .sh or .bash name (grpo_step.py). A bare name
//     (go, mls-lite-bench) is found on PATH by the shell and is not checked;
//     an absolute path or a {{placeholder}} is the user's own by writing.
//   - Such a path passes when it exists relative to the spec's folder (where
//     Assay resolves a plugin's source) or to the repository root (where the
//     specs' commands are run from, e.g. `go run ./examples/...`).
//   - Otherwise the header comment (the comment lines before the first line
//     of content) of the spec or of a spec of its extends chain must name
//     it, as written, after a line that says "You supply": a spec that
//     extends another inherits what that one documents.
func TestSpecProgramsExistOrAreSupplied(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, ext := range []string{"hcl", "cue", "json", "yaml"} {
		m, _ := filepath.Glob(filepath.Join(root, "specs", "*."+ext))
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		t.Fatalf("found %d specs", len(paths))
	}
	checked := 0
	for _, path := range paths {
		s, _, ds := load.Load(path, load.Options{})
		if ds.HasErrors() {
			t.Errorf("%s: %s", path, ds.Format(0))
			continue
		}
		supplied := ""
		for _, f := range s.Files {
			supplied += suppliedSection(t, f)
		}
		for _, prog := range specPrograms(s) {
			checked++
			if exists(filepath.Dir(path), prog) || exists(root, prog) {
				continue
			}
			if !strings.Contains(supplied, prog) {
				t.Errorf("%s names %s, which is not in the repository and which its header (or a base's) does not list after \"You supply\": ship it, or say what the user supplies and what it must do", filepath.Base(path), prog)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no spec names a program: the rule checks nothing")
	}
}

// suppliedSection is what the header comment of the spec file at path
// says from its "You supply" line on ("" without one).
func suppliedSection(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "//") {
			break
		}
		header = append(header, l)
	}
	h := strings.Join(header, "\n")
	if i := strings.Index(h, "You supply"); i >= 0 {
		return h[i:] + "\n"
	}
	return ""
}

// specPrograms are the relative program paths the merged spec s names.
func specPrograms(s *spec.Spec) []string {
	var out []string
	add := func(words []string) {
		if p := programOf(words); isRelativePath(p) {
			out = append(out, p)
		}
	}
	for _, p := range s.Plugins {
		if src := p.Source.V; src != "" && !strings.HasPrefix(src, host.BuiltinPrefix) {
			add([]string{src})
		}
		for _, key := range []string{"command", "update_command"} {
			if c, ok := p.Config.V[key].(string); ok {
				add(strings.Fields(c))
			}
		}
		if c, ok := p.Config.V["task_command"].([]any); ok {
			var words []string
			for _, w := range c {
				if s, ok := w.(string); ok {
					words = append(words, s)
				}
			}
			add(words)
		}
	}
	for _, e := range s.Environments {
		if e.Source != nil {
			add(e.Source.Build.V)
		}
		for _, task := range e.TaskList {
			if task.Source != nil {
				add(task.Source.Build.V)
			}
		}
	}
	return out
}

// programOf is the program a command runs: its first word, or the first
// word after an interpreter that is not a flag.
func programOf(words []string) string {
	if len(words) == 0 {
		return ""
	}
	rest := words[1:]
	switch filepath.Base(words[0]) {
	case "python", "python3", "sh", "bash", "node":
	case "go":
		if len(rest) == 0 || rest[0] != "run" {
			return words[0]
		}
		rest = rest[1:]
	default:
		return words[0]
	}
	for _, w := range rest {
		if !strings.HasPrefix(w, "-") {
			return w
		}
	}
	return ""
}

func isRelativePath(p string) bool {
	if p == "" || filepath.IsAbs(p) || strings.Contains(p, "{{") {
		return false
	}
	return strings.Contains(p, "/") || strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".bash")
}

func exists(dir, p string) bool {
	_, err := os.Stat(filepath.Join(dir, p))
	return err == nil
}
