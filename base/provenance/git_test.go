package provenance

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=a", "-c", "user.email=a@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestGitState(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "base.hcl"), []byte("x"), 0o644)
	if g := GitState([]string{filepath.Join(outside, "base.hcl")}); g.Commit != "" || !g.Dirty || g.NoCommit != "not in a git repository" {
		t.Errorf("outside a repository: %+v", g)
	}

	repo := t.TempDir()
	run(t, repo, "init", "-q")
	spec := filepath.Join(repo, "exp", "a b.hcl") // a space, and a subdirectory
	os.MkdirAll(filepath.Dir(spec), 0o755)
	os.WriteFile(spec, []byte("x"), 0o644)
	if g := GitState([]string{spec}); g.Commit != "" || !g.Dirty || g.NoCommit == "" {
		t.Errorf("a repository without commits: %+v", g)
	}
	run(t, repo, "add", "-A")
	run(t, repo, "commit", "-q", "-m", "spec")
	clean := GitState([]string{spec})
	if len(clean.Commit) != 40 || clean.Dirty || len(clean.DirtyFiles) != 0 {
		t.Fatalf("a committed spec: %+v", clean)
	}
	// A change elsewhere in the repository does not make the spec dirty.
	os.WriteFile(filepath.Join(repo, "other.txt"), []byte("y"), 0o644)
	if g := GitState([]string{spec}); g.Dirty {
		t.Errorf("an unrelated untracked file made the spec dirty: %+v", g)
	}
	os.WriteFile(spec, []byte("changed"), 0o644)
	g := GitState([]string{spec, filepath.Join(outside, "base.hcl")})
	if g.Commit != clean.Commit || !g.Dirty || !slices.Contains(g.DirtyFiles, "exp/a b.hcl") || !slices.Contains(g.DirtyFiles, filepath.Join(outside, "base.hcl")) {
		t.Errorf("a modified spec and a base outside the repository: %+v", g)
	}
	// A name that looks like a pathspec pattern is taken literally.
	star := filepath.Join(repo, "exp", "*.hcl")
	os.WriteFile(star, []byte("z"), 0o644)
	run(t, repo, "add", "-A")
	run(t, repo, "commit", "-q", "-m", "all")
	os.WriteFile(spec, []byte("changed again"), 0o644)
	if g := GitState([]string{star}); g.Dirty {
		t.Errorf("\"*.hcl\" matched another file: %+v", g)
	}
}
