package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestRealPathDoc keeps docs/real-path.md and the script that runs its
// server-bound blocks (testdata/script/real_path.txtar) one: the spec the
// page shows is the script's real.hcl byte for byte, and every command of
// a block the page marks as run by the script is a command of the script.
func TestRealPathDoc(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	const script = "cmd/assay/testdata/script/real_path.txtar"
	ar, err := txtar.ParseFile(filepath.Join(root, script))
	if err != nil {
		t.Fatal(err)
	}
	var spec string
	for _, f := range ar.Files {
		if f.Name == "real.hcl" {
			spec = string(f.Data)
		}
	}
	if spec == "" {
		t.Fatalf("%s has no real.hcl", script)
	}
	lines := strings.Split(string(ar.Comment), "\n")
	blocks, err := readDocBlocks(filepath.Join(root, "docs", "real-path.md"), root)
	if err != nil {
		t.Fatal(err)
	}
	specs, cmds := 0, 0
	for _, b := range blocks {
		if f, ok := b.mark("fragment of"); ok && f == script {
			specs++
			if got := strings.Join(b.body, "\n") + "\n"; got != spec {
				t.Errorf("docs/real-path.md:%d: the spec differs from %s's real.hcl:\n%s", b.line, script, got)
			}
		}
		if r, ok := b.mark("not run:"); ok && r == "run by "+script {
			for _, l := range b.body {
				l = strings.TrimSpace(l)
				if l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				cmds++
				if !slices.Contains(lines, "exec "+l) && !slices.Contains(lines, l) {
					t.Errorf("docs/real-path.md:%d: %q is not a command of %s", b.line, l, script)
				}
			}
		}
	}
	if specs != 1 || cmds < 10 {
		t.Fatalf("docs/real-path.md shows %d specs and %d commands run by %s; want 1 and at least 10", specs, cmds, script)
	}
	checkAnswerBlocks(t, root)
}

// answerMark marks a block of docs/real-path.md that shows an answer a
// script's server gives: <!-- doc: answer FILE of SCRIPT -->.
var answerMark = regexp.MustCompile(`^<!-- doc: answer (\S+) of (\S+) -->$`)

// checkAnswerBlocks checks that each answer docs/real-path.md shows (a
// block fenced with ~~~, which may hold ``` fences of its own) is the
// file of the script it names, byte for byte: the script's server gives
// that answer and the script checks what it builds.
func checkAnswerBlocks(t *testing.T, root string) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "real-path.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	n := 0
	for i := 0; i < len(lines); i++ {
		m := answerMark.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "~~~") {
			t.Fatalf("docs/real-path.md:%d: an answer block is fenced with ~~~ just after its mark", i+1)
		}
		end := i + 2
		for end < len(lines) && lines[end] != "~~~" {
			end++
		}
		body := strings.Join(lines[i+2:end], "\n") + "\n"
		ar, err := txtar.ParseFile(filepath.Join(root, m[2]))
		if err != nil {
			t.Fatal(err)
		}
		k := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == m[1] })
		switch {
		case k < 0:
			t.Errorf("docs/real-path.md: %s has no file %s", m[2], m[1])
		case string(ar.Files[k].Data) != body:
			t.Errorf("docs/real-path.md: the answer differs from %s's %s:\n%s", m[2], m[1], body)
		}
		n, i = n+1, end
	}
	if n < 5 {
		t.Fatalf("docs/real-path.md shows %d answers checked against a script; want every shape (5)", n)
	}
}
