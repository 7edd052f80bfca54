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

// A name that deceives a reader of the diff, or changes git itself, is
// refused with the path escaped and what to do; plain names pass.
func TestCheckName(t *testing.T) {
	all := []string{"*"}
	tests := []struct {
		path     string
		editable []string
		want     string // "" for accepted
	}{
		{"train.py", all, ""},
		{"src/model-v2/a_b.c", all, ""},
		{"données/é.txt", all, ""},
		{"a\tb.py", all, `"a\tb.py" holds a control character (U+0009)`},
		{"a\nb.py", all, `"a\nb.py" holds a control character (U+000A)`},
		{"a\x7fb.py", all, `control character (U+007F)`},
		{"a\x1b[31mb.py", all, `control character (U+001B)`},
		{"a\u0085b.py", all, `control character (U+0085)`},
		{"evil\u202egnp.py", all, `"evil\u202egnp.py" holds a bidirectional control (U+202E)`},
		{"a\u202ab", all, "bidirectional control (U+202A)"},
		{"a\u2066b", all, "bidirectional control (U+2066)"},
		{"a\u2069b", all, "bidirectional control (U+2069)"},
		{"a\u200eb", all, "bidirectional control (U+200E)"},
		{"a\u200fb", all, "bidirectional control (U+200F)"},
		{"a\u061cb", all, "bidirectional control (U+061C)"},
		{"a\u200bb", all, "invisible format character (U+200B)"},
		{"a\u2028b", all, "line separator (U+2028)"},
		{"a\xffb", all, "not valid UTF-8"},
		{"-rf", all, `"-rf" has a part that starts with "-"`},
		{"src/--help/x.py", all, `starts with "-"`},
		{"a-b/c-", all, ""},
		{".gitattributes", all, `".gitattributes" is git's own .gitattributes file`},
		{"sub/.gitmodules", all, `git's own .gitmodules file`},
		{"deep/er/.gitignore", all, `git's own .gitignore file, which changes what git does, not the program: change it only where editable names "deep/er/.gitignore" itself`},
		{".GitIgnore", all, "git's own .gitignore file"},
		{".gitignore", []string{".git*"}, "a glob does not count"},
		{".gitignore", []string{".gitignore"}, ""},
		{"sub/.gitignore", []string{".gitignore"}, "git's own .gitignore file"},
		{"sub/.gitignore", []string{"sub/.gitignore"}, ""},
		{".gitignore.py", all, ""},
	}
	for _, tc := range tests {
		err := checkName(tc.path, tc.editable)
		var pe *PatchError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q refused: %v", tc.path, err)
		case tc.want != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: got %v, want a refusal with %q", tc.path, err, tc.want)
		case err != nil && strings.ContainsAny(err.Error(), "\t\n\x7f\x1b\u202e\u202a\u2066\u2069\u200e\u200f\u061c\u200b\u2028"):
			t.Errorf("%q: the message holds the raw character: %q", tc.path, err)
		}
	}
}

// CheckChange reads what the index changes from git itself, so a name or
// a mode is refused whichever way it was staged: here with git directly,
// as no answer shape could stage it past Apply's and Edit's own checks.
func TestCheckChangeRefuses(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	r, head := seedRepo(t)
	blob := func(wt string) string {
		return strings.TrimSpace(gitOut(t, wt, "hash-object", "-w", "--stdin"))
	}
	tests := []struct {
		name     string
		editable []string
		stage    func(wt string) // stages the change with git
		want     string          // "" for accepted
	}{
		{"a plain change", []string{"*"}, func(wt string) { addFile(t, wt, "main.go", "package main\n") }, ""},
		{"a new plain file", []string{"*"}, func(wt string) { addFile(t, wt, "new.go", "package main\n") }, ""},
		{"a deletion", []string{"*"}, func(wt string) { gitOut(t, wt, "rm", "-q", "README") }, ""},
		{"a file named -rf", []string{"*"}, func(wt string) { addFile(t, wt, "-rf", "x\n") }, `"-rf" has a part that starts with "-"`},
		{"a bidi override", []string{"*"}, func(wt string) { addFile(t, wt, "main\u202eog.go", "x\n") }, `"main\u202eog.go" holds a bidirectional control`},
		{"a tab", []string{"*"}, func(wt string) { addFile(t, wt, "a\tb.go", "x\n") }, `"a\tb.go" holds a control character`},
		{"a newline", []string{"*"}, func(wt string) { addFile(t, wt, "a\nb.go", "x\n") }, `"a\nb.go" holds a control character`},
		{".gitattributes under a glob", []string{"*"}, func(wt string) { addFile(t, wt, ".gitattributes", "* filter=x\n") }, "git's own .gitattributes"},
		{"a deep .gitmodules", []string{"*"}, func(wt string) { addFile(t, wt, "a/.gitmodules", "x\n") }, "git's own .gitmodules"},
		{".gitignore named literally", []string{"*.go", ".gitignore"}, func(wt string) { addFile(t, wt, ".gitignore", "out/\n") }, ""},
		{"not editable", []string{"*.go"}, func(wt string) { addFile(t, wt, "README", "x\n") }, "not editable"},
		{"a symlink", []string{"*"}, func(wt string) {
			gitOut(t, wt, "update-index", "--add", "--cacheinfo", "120000,"+blob(wt)+",link.go")
		}, `"link.go" is a symlink (mode 120000)`},
		{"a submodule", []string{"*"}, func(wt string) {
			gitOut(t, wt, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
		}, `"sub" is a submodule (mode 160000)`},
		{"an executable new file", []string{"*"}, func(wt string) {
			gitOut(t, wt, "update-index", "--add", "--cacheinfo", "100755,"+blob(wt)+",run.sh")
		}, `new file "run.sh" has mode 100755`},
		{"a mode change", []string{"*"}, func(wt string) { gitOut(t, wt, "update-index", "--chmod=+x", "main.go") }, `makes "main.go" mode 100755 (it was 100644)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wt := filepath.Join(t.TempDir(), "wt")
			if err := r.AddWorktree(ctx, wt, head); err != nil {
				t.Fatal(err)
			}
			tc.stage(wt)
			err := CheckChange(ctx, wt, tc.editable)
			var pe *PatchError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
		})
	}
}

// addFile writes a file in wt and stages it.
func addFile(t *testing.T, wt, name, body string) {
	t.Helper()
	p := filepath.Join(wt, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, p, body)
	gitOut(t, wt, "add", "--", name)
}

// Each answer shape that names a refused path is refused before git
// reads it: a patch, a whole file, a SEARCH/REPLACE block creating one.
func TestShapesRefuseNames(t *testing.T) {
	ctx := context.Background()
	r, head := seedRepo(t)
	all := []string{"*"}
	newFile := func(p string) string {
		return "diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1 @@\n+x\n"
	}
	tests := []struct {
		name   string
		change func(wt string) error
		want   string
	}{
		{"a patch adding .gitattributes", func(wt string) error {
			_, err := Apply(ctx, wt, newFile(".gitattributes"), all)
			return err
		}, "git's own .gitattributes"},
		{"a patch adding -rf", func(wt string) error { _, err := Apply(ctx, wt, newFile("-rf"), all); return err }, `"-rf" has a part`},
		{"a patch adding a bidi name", func(wt string) error {
			_, err := Apply(ctx, wt, newFile("x\u202eyp.go"), all)
			return err
		}, `"x\u202eyp.go" holds a bidirectional control`},
		{"an executable new file", func(wt string) error {
			_, err := Apply(ctx, wt, strings.Replace(newFile("run.sh"), "100644", "100755", 1), all)
			if err == nil {
				err = CheckChange(ctx, wt, all)
			}
			return err
		}, `new file "run.sh" has mode 100755`},
		{"a whole file with a newline in its name", func(wt string) error {
			_, err := Edit(ctx, wt, []Write{{Path: "a\nb.go", Content: "x"}}, nil, all, nil)
			return err
		}, `"a\nb.go" holds a control character`},
		{"a SEARCH/REPLACE block creating .gitmodules", func(wt string) error {
			_, err := Edit(ctx, wt, nil, []Replace{{Path: "sub/.gitmodules", Replace: "[submodule]\n"}}, all, nil)
			return err
		}, "git's own .gitmodules"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wt := filepath.Join(t.TempDir(), "wt")
			if err := r.AddWorktree(ctx, wt, head); err != nil {
				t.Fatal(err)
			}
			err := tc.change(wt)
			var pe *PatchError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal with %q", err, tc.want)
			}
		})
	}
}

// A file git checks out with CRLF line ends and stores with LF (an eol
// attribute) takes a patch of either line ends: the patch is fitted to
// the file as git stores it, which is what git applies it to. Fitted to
// the CRLF lines it was refused as "does not apply".
func TestApplyCheckedOutCRLF(t *testing.T) {
	ctx := context.Background()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".gitattributes"), "*.txt text eol=crlf\n")
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seed"}} {
		gitOut(t, dir, args...)
	}
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	lf := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
	for name, patch := range map[string]string{"LF": lf, "CRLF": strings.ReplaceAll(lf, "\n", "\r\n")} {
		t.Run(name, func(t *testing.T) {
			wt := filepath.Join(t.TempDir(), "wt")
			if err := r.AddWorktree(ctx, wt, head); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(wt, "a.txt")); !strings.Contains(string(b), "\r\n") {
				t.Skipf("git checked a.txt out without CRLF: %q", b)
			}
			if _, err := Apply(ctx, wt, patch, []string{"*.txt"}); err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := staged(t, wt, "a.txt"); got != "one\nTWO\nthree\n" {
				t.Fatalf("a.txt is %q", got)
			}
			if b, _ := os.ReadFile(filepath.Join(wt, "a.txt")); string(b) != "one\r\nTWO\r\nthree\r\n" {
				t.Fatalf("a.txt checked out as %q", b)
			}
		})
	}
}

// A patch that does not apply says what line ends had to do with it,
// where the patch or its file has CRLF ones, not only "does not apply".
func TestApplyNamesCRLF(t *testing.T) {
	ctx := context.Background()
	r, head := shapesRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, head); err != nil {
		t.Fatal(err)
	}
	wrong := "--- a/main.go\n+++ b/main.go\n@@ -5 +5 @@\n-const rate = 0.7\n+const rate = 1\n"
	tests := []struct{ name, patch, want string }{
		{"a CRLF patch", strings.ReplaceAll(wrong, "\n", "\r\n"), "line ends are not why: CRLF line ends (the patch's) are read as LF and fitted to each file's own"},
		{"a CRLF file", "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -2 +2 @@\n-too\n+TWO\n", "CRLF line ends (crlf.txt) are read as LF"},
		{"LF both", wrong, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(ctx, wt, tc.patch, []string{"*.go", "*.txt"})
			var pe *PatchError
			switch {
			case !errors.As(err, &pe) || !strings.Contains(err.Error(), "does not apply"):
				t.Fatalf("got %v, want a patch that does not apply", err)
			case tc.want == "" && strings.Contains(err.Error(), "CRLF"):
				t.Fatalf("an LF patch of an LF file: %v", err)
			case !strings.Contains(err.Error(), tc.want):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	if note := lineEndNote(wt, "--- a/crlf.txt\n+++ b/crlf.txt\n", true); !strings.Contains(note, "crlf.txt has CRLF line ends: change it with SEARCH/REPLACE blocks") {
		t.Fatalf("a fitted patch git did not apply to a CRLF file: %q", note)
	}
}
