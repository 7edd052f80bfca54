package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/base/textdiff"
)

const mainGo = "package main\n\nimport \"fmt\"\n\nconst rate = 0.5\n\nfunc main() { fmt.Println(rate) }\n"

// seedRepo makes a real git repository with main.go and README, one commit.
func seedRepo(t *testing.T) (*Repo, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "main.go"), mainGo)
	write(t, filepath.Join(dir, "README"), "seed\n")
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

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ratePatch(to string) string {
	return textdiff.Unified("a/main.go", "b/main.go", mainGo, strings.Replace(mainGo, "0.5", to, 1))
}

func TestWorktreeApplyCommitRef(t *testing.T) {
	ctx := context.Background()
	r, head := seedRepo(t)
	if err := Check(r.Dir, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if err := Check(r.Dir, "no-such-branch"); err == nil {
		t.Fatal("a revision that names nothing was accepted")
	}
	if err := Check(t.TempDir(), "HEAD"); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Fatalf("a plain directory: %v", err)
	}
	when := time.Unix(1_700_000_000, 0)
	var ids []string
	for _, name := range []string{"c1", "c2"} {
		wt := filepath.Join(t.TempDir(), "wt", name)
		if err := r.AddWorktree(ctx, wt, head); err != nil {
			t.Fatal(err)
		}
		paths, err := Apply(ctx, wt, ratePatch("0.25"), []string{"*.go"})
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 1 || paths[0] != "main.go" {
			t.Fatalf("paths %q", paths)
		}
		if _, err := Build(ctx, wt, []string{"grep", "-q", "0.25", "main.go"}, nil, time.Minute); err != nil {
			t.Fatal(err)
		}
		id, err := Commit(ctx, wt, "assay: candidate\n", when)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if err := r.UpdateRef(ctx, RefName("run-1", name), id); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveWorktree(ctx, wt); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(wt); !os.IsNotExist(err) {
			t.Fatalf("worktree %s still there: %v", wt, err)
		}
	}
	if ids[0] != ids[1] {
		t.Fatalf("the same patch on the same parent at the same time made two commits: %s, %s", ids[0], ids[1])
	}
	got, err := r.Resolve(ctx, "refs/assay/run-1/c2")
	if err != nil || got != ids[0] {
		t.Fatalf("ref: %s, %v", got, err)
	}
	st, err := r.Stat(ctx, head, got)
	if err != nil || st != (DiffStat{Files: 1, Additions: 1, Deletions: 1}) {
		t.Fatalf("diffstat %+v, %v", st, err)
	}
	files, err := r.Files(ctx, got, []string{"*.go"}, 1<<10, 1<<20, 10)
	if err != nil || len(files) != 1 || !strings.Contains(files[0].Content, "0.25") {
		t.Fatalf("files %+v, %v", files, err)
	}
	if files, _ := r.Files(ctx, got, []string{"*.go"}, 10, 1<<20, 10); !files[0].Truncated || len(files[0].Content) != 10 {
		t.Fatalf("per-file limit not kept: %+v", files)
	}
}

func TestApplyRefuses(t *testing.T) {
	ctx := context.Background()
	r, head := seedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, head); err != nil {
		t.Fatal(err)
	}
	readme := textdiff.Unified("a/README", "b/README", "seed\n", "changed\n")
	tests := []struct {
		name, patch, want string
	}{
		{"outside editable", readme, "not editable"},
		{"absolute", strings.ReplaceAll(ratePatch("1"), "a/main.go", "a//etc/passwd"), "absolute"},
		{"dot dot", strings.ReplaceAll(ratePatch("1"), "b/main.go", "b/../main.go"), "leaves the repository"},
		{"into .git", "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-x\n+y\n", "inside .git"},
		{"symlink", "diff --git a/link.go b/link.go\nnew file mode 120000\n--- /dev/null\n+++ b/link.go\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n", "mode 120000"},
		{"binary", "diff --git a/x.go b/x.go\nnew file mode 100644\nGIT binary patch\nliteral 0\n", "binary"},
		{"empty", "", "empty"},
		{"too large", strings.Repeat("x", MaxPatch+1), "limit"},
		{"does not apply", strings.ReplaceAll(ratePatch("1"), "const rate = 0.5", "const rate = 0.7"), "does not apply"},
		{"git sees a path the header hides", "--- a/main.go\n+++ b/main.go\n@@ -1,0 +1,0 @@\ndiff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-seed\n+x\n", "not editable"},
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
	if b, _ := os.ReadFile(filepath.Join(wt, "README")); string(b) != "seed\n" {
		t.Fatalf("a refused patch changed README: %q", b)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{"*.go"}, "main.go", true},
		{[]string{"*.go"}, "sub/x.go", true}, // as git: * matches /
		{[]string{"model"}, "model/a.py", true},
		{[]string{"model/"}, "model/a.py", true},
		{[]string{"model"}, "modelx/a.py", false},
		{[]string{"train/*.py"}, "eval/a.py", false},
		{[]string{"a?.txt"}, "ab.txt", true},
		{[]string{"a.txt"}, "aXtxt", false},
	}
	for _, tc := range tests {
		if got := Match(tc.globs, tc.path); got != tc.want {
			t.Errorf("Match(%q, %q) = %v", tc.globs, tc.path, got)
		}
	}
}

func TestBuildFailsWithOutputAndTimeLimit(t *testing.T) {
	dir := t.TempDir()
	_, err := Build(context.Background(), dir, []string{"sh", "-c", "echo broken >&2; exit 3"}, nil, time.Minute)
	var be *BuildError
	if !errors.As(err, &be) || !strings.Contains(be.Msg, "broken") {
		t.Fatalf("got %v", err)
	}
	_, err = Build(context.Background(), dir, []string{"sleep", "30"}, nil, 100*time.Millisecond)
	if !errors.As(err, &be) || !strings.Contains(be.Msg, "time limit") {
		t.Fatalf("got %v", err)
	}
}

// A build's environment is what it is given, and nothing of the
// process's: a secret in it does not reach the build.
func TestBuildEnvironment(t *testing.T) {
	t.Setenv("ASSAY_TEST_SECRET", "sk-test")
	out, err := Build(context.Background(), t.TempDir(), []string{"env"}, []string{"A=1", "B=two words"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(strings.ReplaceAll(out, " ", "_")); !slices.Equal(got, []string{"A=1", "B=two_words"}) {
		t.Errorf("the build's environment is %q, want A and B alone", out)
	}
	if out, err = Build(context.Background(), t.TempDir(), []string{"env"}, nil, time.Minute); err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("with no environment given, the build has %q (%v), want none", out, err)
	}
}

func TestRefName(t *testing.T) {
	if got := RefName("run 1", "evolve/t1/.x..y.lock", "best"); got != "refs/assay/run-1/evolve/t1/x-y/best" {
		t.Fatalf("got %s", got)
	}
}

func FuzzCheckPatch(f *testing.F) {
	f.Add(ratePatch("0.1"))
	f.Add("diff --git a/x b/x\nold mode 100644\nnew mode 120000\n")
	f.Add("--- a/a.go\t2020-01-01\n+++ b/a.go\n@@ -1,2 +1 @@\n--- a/x\n-y\n+z\n")
	f.Fuzz(func(t *testing.T, patch string) {
		paths, err := CheckPatch(patch, []string{"*.go", "src"})
		if err != nil {
			return
		}
		for _, p := range paths {
			if strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") || !Match([]string{"*.go", "src"}, p) {
				t.Fatalf("accepted path %q", p)
			}
		}
	})
}

// Init commits a directory's files as Assay at a fixed time: the same
// files make the same commit wherever they are.
func TestInitIsReproducible(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for range 2 {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
		id, err := Init(context.Background(), dir, "example\n", when)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if ids[0] != ids[1] || !commitID.MatchString(ids[0]) {
		t.Fatalf("commits %v: want one id", ids)
	}
}

// A seed program is a whole repository: a directory inside one is refused,
// not widened to the repository around it.
func TestOpenRefusesASubdirectory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "a.txt"), []byte("a\n"), 0o644)
	if _, err := Init(context.Background(), dir, "seed\n", time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, "HEAD"); err != nil {
		t.Fatalf("the top: %v", err)
	}
	if err := Check(sub, "HEAD"); err == nil || !strings.Contains(err.Error(), "not its top") {
		t.Fatalf("a subdirectory: %v", err)
	}
}
