package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An import of a directory inside another repository is a repository of
// its own, its seed tagged: .git and excluded paths left out, the overlay
// laid over it, the same files the same repository and commit on a second
// import, and a change of a file a new one.
func TestImportDirectory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	outer, _ := seedRepo(t)
	dir := filepath.Join(outer.Dir, "scaffold")
	put(t, filepath.Join(dir, "main.go"), mainGo)
	put(t, filepath.Join(dir, "main_test.go"), "package main\n")
	put(t, filepath.Join(dir, "sub", "run.sh"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "sub", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(dir, ".gitignore"), "*.sh\n")
	put(t, filepath.Join(dir, "data", "big.bin"), "xxxx")
	if err := os.Symlink("../main.go", filepath.Join(dir, "sub", "link.go")); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(dir, "sub", ".git"), "gitdir: elsewhere\n")
	over := filepath.Join(t.TempDir(), "over")
	put(t, filepath.Join(over, "go.mod"), "module example.com/x\n")
	root := filepath.Join(t.TempDir(), "imports")
	src := ImportSource{Dir: dir, Exclude: []string{"*_test.go", "data"}, Overlay: over}
	ctx := context.Background()
	r, commit, err := Import(ctx, src, root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(r.Dir) != root {
		t.Errorf("imported into %s, want a directory of %s", r.Dir, root)
	}
	out, err := run(ctx, r.Dir, nil, "ls-tree", "-r", "--full-tree", commit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"100644 blob", "\tmain.go\n", "\tgo.mod\n", "100755 blob", "\tsub/run.sh\n", "120000 blob", "\tsub/link.go\n", "\t.gitignore\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("seed tree lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"main_test.go", "data/", "sub/.git"} {
		if strings.Contains(out, not) {
			t.Errorf("seed tree holds %s:\n%s", not, out)
		}
	}
	// The same directory through a symlink is the same import.
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(dir, link))
	viaLink := src
	viaLink.Dir = link
	if r, c, err := Import(ctx, viaLink, root); err != nil || c != commit {
		t.Errorf("import through a symlink: %v %s %v; want %s", r, c, err, commit)
	}
	r2, commit2, err := Import(ctx, src, root)
	if err != nil || r2.Dir != r.Dir || commit2 != commit {
		t.Errorf("second import: %v %v %v; want %s at %s", r2, commit2, err, r.Dir, commit)
	}
	// A checkout moving HEAD does not move the seed.
	if _, err := run(ctx, r.Dir, nil, "checkout", "-q", "--detach", commit); err != nil {
		t.Fatal(err)
	}
	put(t, filepath.Join(dir, "main.go"), mainGo+"// changed\n")
	r3, commit3, err := Import(ctx, src, root)
	if err != nil || r3.Dir == r.Dir || commit3 == commit {
		t.Errorf("import of changed files: %v %v %v; want a new repository", r3, commit3, err)
	}
}

// An import refuses what it cannot take whole and safely.
func TestImportRefuses(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string) string{
		"absolute symlink": func(t *testing.T, dir string) string {
			must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "p")))
			return "absolute path"
		},
		"escaping symlink": func(t *testing.T, dir string) string {
			must(t, os.Symlink("../../x", filepath.Join(dir, "p")))
			return "outside the imported directory"
		},
		"dangling symlink": func(t *testing.T, dir string) string {
			must(t, os.Symlink("nope", filepath.Join(dir, "p")))
			return "does not exist"
		},
		"symlink through a link out": func(t *testing.T, dir string) string {
			out := t.TempDir()
			must(t, os.Symlink(out, filepath.Join(dir, "ln")))
			return "absolute path"
		},
		"too many files": func(t *testing.T, dir string) string {
			for i := range MaxImportEntries + 1 {
				put(t, filepath.Join(dir, "f", strconv.Itoa(i)), "")
			}
			return "more than 4096 files"
		},
		"fifo": func(t *testing.T, dir string) string {
			if err := exec.Command("mkfifo", filepath.Join(dir, "q")).Run(); err != nil {
				t.Skip("no mkfifo")
			}
			return "neither a regular file nor a symlink"
		},
		"not a directory": func(t *testing.T, dir string) string {
			must(t, os.RemoveAll(dir))
			put(t, dir, "x")
			return "not a directory"
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			put(t, filepath.Join(dir, "main.go"), mainGo)
			want := mk(t, dir)
			err := CheckImport(ImportSource{Dir: dir})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("CheckImport: %v; want %q", err, want)
			}
			if _, _, err := Import(context.Background(), ImportSource{Dir: dir}, t.TempDir()); err == nil {
				t.Fatal("Import took what CheckImport refused")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// put writes body at p, making its directory.
func put(t *testing.T, p, body string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	write(t, p, body)
}

// TestImportRemovesStaleTemporaries: a crash during an import leaves a
// temporary directory; a later import removes it once it is old, and
// leaves a recent one, which may be another import under way.
func TestImportRemovesStaleTemporaries(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "src")
	put(t, filepath.Join(dir, "main.go"), mainGo)
	root := filepath.Join(t.TempDir(), "imports")
	stale, fresh := filepath.Join(root, ".tmp-stale"), filepath.Join(root, ".tmp-fresh")
	put(t, filepath.Join(stale, "main.go"), mainGo)
	put(t, filepath.Join(fresh, "main.go"), mainGo)
	old := time.Now().Add(-2 * staleImport)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Import(context.Background(), ImportSource{Dir: dir}, root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary directory is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fresh, "main.go")); err != nil {
		t.Errorf("a recent temporary directory was removed: %v", err)
	}
}
