package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shapesRepo is a repository whose files have the shapes a lenient patch
// must fit: LF, CRLF, no final newline, a block written twice.
func shapesRepo(t *testing.T) (*Repo, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		"main.go":    mainGo,
		"crlf.txt":   "one\r\ntwo\r\nthree\r\n",
		"noeol.txt":  "first\nlast",
		"dup.go":     "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n",
		"spaces.txt": "keep  \nchange\n",
		"README":     "seed\n",
		"other.go":   "package other\n\nconst rate = 0.5\n",
		"indent.py":  "def f():\n    x = 1\n    return x\n",
	}
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seed"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	r, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve(context.Background(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return r, head
}

// staged is path's content in the worktree's index: what a commit holds.
func staged(t *testing.T, wt, path string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", wt, "show", ":"+path).Output()
	if err != nil {
		t.Fatalf("git show :%s: %v", path, err)
	}
	return string(out)
}

// The usual slips of a model's diff apply, each as the model meant it;
// Apply before it fitted patches (git apply of the patch as written)
// refused all but the blank context line, which git reads itself.
func TestApplyToleratesSlips(t *testing.T) {
	ctx := context.Background()
	r, head := shapesRepo(t)
	editable := []string{"*.go", "*.txt"}
	rate := "@@ -5,1 +5,1 @@\n-const rate = 0.5\n+const rate = 0.25\n"
	tests := []struct {
		name, patch, path, want string
	}{
		{"hunk counts too high", "--- a/main.go\n+++ b/main.go\n@@ -4,9 +4,9 @@\n \n-const rate = 0.5\n+const rate = 0.25\n \n", "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"hunk counts too low", "--- a/main.go\n+++ b/main.go\n@@ -4,1 +4,1 @@\n \n-const rate = 0.5\n+const rate = 0.25\n \n func main() { fmt.Println(rate) }\n", "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"no a/ b/ prefixes", "--- main.go\n+++ main.go\n" + rate, "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"CRLF in the answer", strings.ReplaceAll("--- a/main.go\n+++ b/main.go\n"+rate, "\n", "\r\n"), "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"no final newline in the answer", strings.TrimSuffix("--- a/main.go\n+++ b/main.go\n"+rate, "\n"), "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"a blank context line without its space", "--- a/main.go\n+++ b/main.go\n@@ -4,3 +4,3 @@\n\n-const rate = 0.5\n+const rate = 0.25\n\n", "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"a wrong line number", "--- a/main.go\n+++ b/main.go\n@@ -40,1 +40,1 @@\n-const rate = 0.5\n+const rate = 0.25\n", "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"no line numbers", "--- a/main.go\n+++ b/main.go\n@@ ... @@\n-const rate = 0.5\n+const rate = 0.25\n", "main.go", strings.Replace(mainGo, "0.5", "0.25", 1)},
		{"trailing whitespace lost", "--- a/spaces.txt\n+++ b/spaces.txt\n@@ -1,2 +1,2 @@\n keep\n-change\n+changed\n", "spaces.txt", "keep  \nchanged\n"},
		{"an LF patch of a CRLF file", "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n", "crlf.txt", "one\r\nTWO\r\nthree\r\n"},
		{"the last line of a file without a final newline", "--- a/noeol.txt\n+++ b/noeol.txt\n@@ -1,2 +1,2 @@\n first\n-last\n+LAST\n", "noeol.txt", "first\nLAST"},
		{"a duplicated block its line number names", "--- a/dup.go\n+++ b/dup.go\n@@ -5,3 +5,3 @@\n func b() {\n-\treturn 1\n+\treturn 2\n", "dup.go", "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n"},
		{"a new file without its mode line", "diff --git a/new.go b/new.go\n--- /dev/null\n+++ b/new.go\n@@ -0,0 +1,1 @@\n+package main\n", "new.go", "package main\n"},
		{"two files without diff --git lines, counts wrong", "--- a/spaces.txt\n+++ b/spaces.txt\n@@ -2,5 +2,5 @@\n-change\n+two files\n--- a/main.go\n+++ b/main.go\n" + rate, "spaces.txt", "keep  \ntwo files\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wt := filepath.Join(t.TempDir(), "wt")
			if err := r.AddWorktree(ctx, wt, head); err != nil {
				t.Fatal(err)
			}
			if _, err := Apply(ctx, wt, tc.patch, editable); err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := staged(t, wt, tc.path); got != tc.want {
				t.Fatalf("%s is %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// What is really ambiguous, or names no place, is refused with a message
// that says what to do.
func TestApplyRefusesAmbiguity(t *testing.T) {
	ctx := context.Background()
	r, head := shapesRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, head); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, patch, want string }{
		{"a duplicated block at a line number far from both", "--- a/dup.go\n+++ b/dup.go\n@@ -40,2 +40,2 @@\n-\treturn 1\n+\treturn 2\n", "ambiguous: its lines are in 2 places of the file (lines 2, 6)"},
		{"a duplicated block without line numbers", "--- a/dup.go\n+++ b/dup.go\n@@ @@\n-\treturn 1\n+\treturn 2\n", "ambiguous"},
		{"lines not in the file", "--- a/main.go\n+++ b/main.go\n@@ -5 +5 @@\n-const rate = 0.7\n+const rate = 1\n", `"const rate = 0.7" is not in it`},
		{"a hunk without a file header", "Here:\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 1\n", "no file header"},
		{"two hunks on the same lines", "--- a/main.go\n+++ b/main.go\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 1\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 2\n", "change the same lines"},
		{"quoted names", "--- \"a/main.go\"\n+++ \"b/main.go\"\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 1\n", "quoted path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(ctx, wt, tc.patch, []string{"*.go"})
			var pe *PatchError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
		})
	}
	if got := staged(t, wt, "dup.go"); !strings.Contains(got, "return 1\n}\n\nfunc b() {\n\treturn 1") {
		t.Fatalf("a refused patch changed dup.go: %q", got)
	}
}

// A patch of a file that is a symlink is refused before git sees it.
func TestApplyRefusesASymlinkedFile(t *testing.T) {
	ctx := context.Background()
	r, head := shapesRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, head); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("main.go", filepath.Join(wt, "link.go")); err != nil {
		t.Skip(err)
	}
	_, err := Apply(ctx, wt, "--- a/link.go\n+++ b/link.go\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 1\n", []string{"*.go"})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("got %v", err)
	}
}

// ExtractPatch takes a diff out of prose and fences, part by part, and
// stops a hunk where its counts are met and prose follows.
func TestExtractPatch(t *testing.T) {
	answer := "I raise the rate.\n\n```diff\n--- a/main.go\n+++ b/main.go\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 1\n```\n\nAnd the readme:\n\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-seed\n+grown\n\n- a bullet of prose, not a removed line\n"
	got, err := ExtractPatch(answer)
	if err != nil {
		t.Fatal(err)
	}
	want := "--- a/main.go\n+++ b/main.go\n@@ -5 +5 @@\n-const rate = 0.5\n+const rate = 1\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-seed\n+grown\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got, err := ExtractPatch("No diff here, only prose.\n- a list\n+ of things\n"); got != "" || err != nil {
		t.Fatalf("prose gave %q, %v", got, err)
	}
}

// FuzzReadPatch: whatever text a model writes, reading it as a patch
// neither panics nor loops, extraction is idempotent, and writing what
// was read and reading it again writes the same patch.
func FuzzReadPatch(f *testing.F) {
	f.Add(ratePatch("0.1"))
	f.Add("--- main.go\n+++ main.go\n@@ -4,9 +4,9 @@\n\n-const rate = 0.5\n+x\n\nprose\n")
	f.Add("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+y\n\\ No newline at end of file\n")
	f.Add("```diff\n@@ @@\n-a\n+b\n```")
	f.Add("diff --git a/a b/b\nrename from a\nrename to b\n")
	f.Fuzz(func(t *testing.T, text string) {
		ex, err := ExtractPatch(text)
		if err != nil {
			return
		}
		if again, err := ExtractPatch(ex); err != nil || again != ex {
			t.Fatalf("extracting %q again gave %q, %v", ex, again, err)
		}
		parts, _ := readPatch(ex)
		var b strings.Builder
		for _, p := range parts {
			if p.render(&b) != nil {
				return
			}
		}
		parts2, err := readPatch(b.String())
		if err != nil {
			t.Fatalf("the written patch %q does not read: %v", b.String(), err)
		}
		var b2 strings.Builder
		for _, p := range parts2 {
			if err := p.render(&b2); err != nil {
				t.Fatalf("the written patch %q does not write: %v", b.String(), err)
			}
		}
		if b2.String() != b.String() {
			t.Fatalf("written twice:\n%q\n%q", b.String(), b2.String())
		}
	})
}
